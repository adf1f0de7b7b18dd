
const k = globalThis.__k6;
const lib = k.htmlLibCache || (k.htmlLibCache = k.htmlLib());
export const parseHTML = lib.parseHTML;
export default { parseHTML };
