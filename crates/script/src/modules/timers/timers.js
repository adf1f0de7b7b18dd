
// The globals of the same names (see TIMERS_GLOBAL_JS).
export const setTimeout = globalThis.setTimeout, clearTimeout = globalThis.clearTimeout,
  setInterval = globalThis.setInterval, clearInterval = globalThis.clearInterval;
