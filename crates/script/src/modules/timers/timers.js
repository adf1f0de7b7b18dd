
// The globals of the same names (see timers/global.fn.js).
export const setTimeout = globalThis.setTimeout, clearTimeout = globalThis.clearTimeout,
  setInterval = globalThis.setInterval, clearInterval = globalThis.clearInterval;
