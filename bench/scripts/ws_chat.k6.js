// A WebSocket workload for `python3 bench/k6.py --ws`: each VU opens one
// session to an echo server, sends a message every SEND_MS, counts the
// echoes, and closes after HOLD_SEC; VUs ramp up over RAMP_SEC.
//
//   WS_URL=ws://127.0.0.1:PORT VUS=1000 k6 run bench/scripts/ws_chat.k6.js
//
// Env: WS_URL (required), VUS (1000), RAMP_SEC (10), HOLD_SEC (20), SEND_MS (1000).
import ws from 'k6/ws';
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
  const res = ws.connect(__ENV.WS_URL, (socket) => {
    socket.on('open', () => socket.setInterval(() => socket.send(`${__VU}:${Date.now()}`), every));
    socket.on('message', () => echoes.add(1));
    socket.setTimeout(() => socket.close(), hold * 1000);
  });
  check(res, { 'status is 101': (r) => r && r.status === 101 });
}
