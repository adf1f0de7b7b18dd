
const k = globalThis.__k6;
// Native, called directly by the script (`check` and `group` in k6/mod.rs).
export const check = k.check;
export const group = k.group;
export const sleep = k.sleep;
export function fail(msg) { throw k.goError(msg === undefined ? '' : String(msg)); }
export function randomSeed(n) {}
export default { check, group, sleep, fail, randomSeed };
