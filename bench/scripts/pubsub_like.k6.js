// The requests and JavaScript work of the DSPS pub/sub k6 script (DSPS's
// own loadtest.k6.js) without its waits, for `bash bench/k6_wake.sh`: a PUT with a JSON body, a GET
// whose JSON body is parsed and read, a DELETE, checks, groups, a counter
// and trends, against a server that answers at once (nginx). With
// SLEEP_SEC=0 the client never idles (CPU per request = the work itself);
// with SLEEP_SEC set it idles between responses, as against DSPS.
//
// Env: BASE_URL (required), VUS (20), DUR (10s), SLEEP_SEC (0).
import http from 'k6/http';
import { group, check, sleep } from 'k6';
import { Counter, Trend } from 'k6/metrics';
const fetched = new Counter('dsps_fetched_messages');
const ttfb = new Trend('dsps_ttfb_ms_publish');
const delay = new Trend('dsps_msg_delay_ms');
export const options = { vus: +(__ENV.VUS || 20), duration: __ENV.DUR || '10s' };
const BASE = __ENV.BASE_URL;
export default function () {
  group("publisher", () => {
    const res = http.put(`${BASE}/channel/c${__VU}/message/${__VU}-${__ITER}`, JSON.stringify({at: (new Date()).getTime()}), { tags: { endpoint: "publish" } });
    check(res, { "is status 200": (r) => r.status === 200 });
    ttfb.add(res.timings.waiting);
  });
  group("subscriber", () => {
    let ackHandle;
    group("fetch", () => {
      const res = http.get(`${BASE}/channel/c${__VU}/subscription/polling/s${__VU}?timeout=3s`, undefined, { tags: { endpoint: "fetch" } });
      const receivedAt = new Date();
      let body = res.json();
      check(res, { "returns valid JSON": () => true, "is status 200": (r) => r.status === 200,
        "has messages array": (r) => typeof(body.messages.length) === "number" });
      fetched.add(body.messages.length);
      for (let i = 0; i < body.messages.length; i++) delay.add(receivedAt.getTime() - body.messages[i].content.at);
      ackHandle = body.ackHandle;
    });
    group("ack", () => {
      const res = http.del(`${BASE}/channel/c${__VU}/subscription/polling/s${__VU}/message?ackHandle=${ackHandle}`, undefined, { tags: { endpoint: "ack" } });
      check(res, { "is status 204": (r) => r.status === 204 });
    });
  });
  // SLEEP_SEC > 0: each VU then sleeps SLEEP_SEC × (0.5 … 1.5), so the VUs
  // drift apart and the client wakes for nearly every response.
  const nap = +(__ENV.SLEEP_SEC || 0);
  if (nap > 0) sleep(nap * (0.5 + Math.random()));
}
