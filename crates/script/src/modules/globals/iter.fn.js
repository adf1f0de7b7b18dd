(k) => {
  const d = Object.getOwnPropertyDescriptor(globalThis, '__ITER');
  delete globalThis.__ITER;
  k.iterGlobal = (on) => {
    if (on) Object.defineProperty(globalThis, '__ITER', d);
    else delete globalThis.__ITER;
  };
}
