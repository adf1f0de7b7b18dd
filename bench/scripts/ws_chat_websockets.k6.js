// bench/scripts/ws_chat.k6.js's workload written for k6/websockets (the
// browser-style API), for `python3 bench/k6.py --ws --ws-api websockets`:
// each VU opens one socket to an echo server, sends a message every
// SEND_MS, counts the echoes, and closes after HOLD_SEC; VUs ramp up over
// RAMP_SEC.
//
//   WS_URL=ws://127.0.0.1:PORT VUS=1000 k6 run bench/scripts/ws_chat_websockets.k6.js
//
// Env: WS_URL (required), VUS (1000), RAMP_SEC (10), HOLD_SEC (20), SEND_MS (1000).
import { WebSocket } from 'k6/websockets';
import { setInterval, clearInterval, setTimeout } from 'k6/timers';
import { check } from 'k6';
import { Counter } from 'k6/metrics';

const vus = +(__ENV.VUS) || 1000;
const ramp = +(__ENV.RAMP_SEC) || 10;
const hold = +(__ENV.HOLD_SEC) || 20;
const every = +(__ENV.SEND_MS) || 1000;
const echoes = new Counter('echoes');

export const options = {
  scenarios: {
    chat: {
      executor: 'ramping-vus',
      stages: [{ duration: `${ramp}s`, target: vus }, { duration: `${hold}s`, target: vus }],
      gracefulRampDown: '0s',
      gracefulStop: '5s',
    },
  },
};

export default function () {
  const ws = new WebSocket(__ENV.WS_URL);
  let id;
  ws.onopen = () => {
    check(ws, { 'open': (w) => w.readyState === 1 });
    id = setInterval(() => { if (ws.readyState === 1) ws.send(`${__VU}:${Date.now()}`); }, every);
    setTimeout(() => ws.close(), hold * 1000);
  };
  ws.onmessage = () => echoes.add(1);
  ws.onclose = () => clearInterval(id);
}
