
(() => {
// res.json(selector): the common subset of gjson's paths, as k6 answers
// them (docs/k6.md): `a.b`, `a.0.c`, `a.#`, `a.#.b`, `a.#(b=="x").c`,
// `a.#(b>1)#`, `*`/`?` in keys, `\.` for a dot in a key.
function gjsonParts(path) {
  const parts = [];
  let cur = '';
  let depth = 0;
  for (let i = 0; i < path.length; i++) {
    const c = path[i];
    if (c === '\\' && i + 1 < path.length) { cur += path[++i]; continue; }
    if (c === '(') depth++;
    if (c === ')') depth--;
    if (c === '.' && depth === 0) { parts.push(cur); cur = ''; continue; }
    cur += c;
  }
  parts.push(cur);
  return parts;
}
function gjsonWild(pat, s) {
  const re = pat.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp('^' + re + '$').test(s);
}
function gjsonQuery(el, q) {
  const m = /^(.*?)(==|!=|<=|>=|!%|<|>|%)(.*)$/.exec(q);
  if (!m) return gjsonGet(el, gjsonParts(q.trim())) !== undefined;
  const left = gjsonGet(el, gjsonParts(m[1].trim()));
  let right = m[3].trim();
  try { right = JSON.parse(right); } catch (e) { /* a bare word */ }
  switch (m[2]) {
    case '==': return left === right;
    case '!=': return left !== right;
    case '<': return left < right;
    case '<=': return left <= right;
    case '>': return left > right;
    case '>=': return left >= right;
    case '%': return typeof left === 'string' && gjsonWild(String(right), left);
    default: return typeof left === 'string' && !gjsonWild(String(right), left);
  }
}
function gjsonGet(v, parts) {
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i];
    if (v === null || typeof v !== 'object') return undefined;
    const rest = parts.slice(i + 1);
    if (p === '#') {
      if (!Array.isArray(v)) return undefined;
      if (rest.length === 0) return v.length;
      return v.map((e) => gjsonGet(e, rest)).filter((x) => x !== undefined);
    }
    const q = /^#\((.*)\)(#?)$/.exec(p);
    if (q) {
      if (!Array.isArray(v)) return undefined;
      if (q[2]) {
        const all = v.filter((e) => gjsonQuery(e, q[1]));
        return rest.length ? all.map((e) => gjsonGet(e, rest)).filter((x) => x !== undefined) : all;
      }
      v = v.find((e) => gjsonQuery(e, q[1]));
      if (v === undefined) return undefined;
      continue;
    }
    if (Array.isArray(v)) {
      if (!/^\d+$/.test(p) || +p >= v.length) return undefined;
      v = v[+p];
      continue;
    }
    if (/[*?]/.test(p)) {
      const k = Object.keys(v).find((key) => gjsonWild(p, key));
      if (k === undefined) return undefined;
      v = v[k];
      continue;
    }
    if (p === '' || !Object.prototype.hasOwnProperty.call(v, p)) return undefined;
    v = v[p];
  }
  return v;
}
return (v, selector) => gjsonGet(v, gjsonParts(String(selector)));
})()
