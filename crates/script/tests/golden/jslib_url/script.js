import { URL, URLSearchParams } from 'https://jslib.k6.io/url/1.0.0/index.js';
function lines() {
  const out = [];
  const u = new URL('../b/c?x=1&y=a+b&z=%E2%9C%93#frag', 'https://user:pw@Example.COM:8443/a/d');
  out.push(u.href, u.origin, u.protocol, u.username, u.password, u.host, u.hostname, u.port, u.pathname, u.search, u.hash);
  out.push(u.searchParams.get('y'), u.searchParams.get('z'), u.searchParams.get('nope'), JSON.stringify(u.searchParams.getAll('x')));
  u.searchParams.append('w', 'v w&=');
  out.push(u.href, u.search);
  u.searchParams.delete('x');
  u.searchParams.set('y', '2');
  out.push(u.toString());
  u.search = '?q=1&q=2';
  out.push(JSON.stringify(u.searchParams.getAll('q')), u.searchParams.has('q'), u.searchParams.has('x'));
  u.pathname = '/new path/ü';
  u.port = '443';
  u.hash = '';
  out.push(u.href, JSON.stringify({ u }));
  u.hostname = 'other.test';
  u.protocol = 'http';
  out.push(u.href);
  const p = new URLSearchParams({ b: '2', a: '1 ', c: 'ä' });
  p.sort();
  out.push(p.toString());
  const q = new URLSearchParams([['k', 'v'], ['k', 'w']]);
  const seen = [];
  q.forEach((v, k) => seen.push(`${k}=${v}`));
  out.push(seen.join(';'), JSON.stringify([...q.keys()]), JSON.stringify([...q.values()]), JSON.stringify([...q]));
  out.push(new URLSearchParams('?a=1&b=%zz&c').toString());
  let err = '';
  try { new URL('not a url'); } catch (e) { err = e.name; }
  out.push(err);
  u.searchParams.delete('q');
  out.push(u.href);
  out.push(new URL('HTTP://EXAMPLE.com/./a/../b/%7e?').href, new URL('file:///tmp/x y').href, new URL('https://[::1]:443/').href);
  return out.map(String);
}
export default function () {}
// Where the file goes: $OUT, else the working folder.
const at = (f) => (__ENV.OUT ? `${__ENV.OUT}/` : '') + f;
export function handleSummary() {
  return { [at('got.txt')]: lines().join('\n') + '\n' };
}
