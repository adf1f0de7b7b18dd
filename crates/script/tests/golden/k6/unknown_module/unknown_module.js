// A module k6 does not have: refused at init, before any load.
import http from 'k6/http';
import nope from 'k6/nope';

export default function () {
  http.get(__ENV.BASE);
  nope();
}
