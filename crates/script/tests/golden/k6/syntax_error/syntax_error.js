// A syntax error on line 5, column 11.
import http from 'k6/http';

export default function () {
  let x = ;
  http.get(__ENV.BASE);
}
