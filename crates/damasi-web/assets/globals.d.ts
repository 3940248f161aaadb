// What the page's classic script puts on `window` (i18n.js: the dictionaries), for the type
// check of the modules (tsconfig.json).
declare global {
  interface Window {
    I18N: Record<string, Record<string, string>>;
  }
}
export {};
