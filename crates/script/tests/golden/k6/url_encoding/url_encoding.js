// What k6 puts in the request line for URLs with characters a URL should
// escape: make.py points CAPTURE at a loopback server that records each
// request line (requests.txt). DSPS's script builds its ack URL the same
// way, unencoded: `?ackHandle=${ackHandle}`.
import http from 'k6/http';

export const options = { vus: 1, iterations: 1 };

export default function () {
  const C = __ENV.CAPTURE;
  http.del(`${C}/channel/c/subscription/polling/s/message?ackHandle={"mid":"1-0-2","xs":"a+b/c="}`);
  http.get(`${C}/a b/{c}/"q"?q=<x> y|z^\`{}&r="s"#frag`);
  http.get(`${C}/%41/é?x=%zz&y=é&z=%20+`);
  http.get(`${C}/%zz`); // refused by k6: invalid URL escape (logged, no request)
  http.get(`${C}/p?x=1&x=2&empty=&flag`);
}
