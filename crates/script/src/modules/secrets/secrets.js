// k6/secrets: values from --secret-source, redacted from every log line
// once a script has read them.
const k = globalThis.__k6;
function read(source, key) {
  return new Promise((resolve, reject) => {
    const r = k.secretGet(source, String(key));
    if (r.ok) resolve(r.value); else reject(r.error);
  });
}
export function get(key) { return read(null, key); }
export function source(name) {
  const n = String(name);
  return { get(key) { return read(n, key); } };
}
export default { get, source };
