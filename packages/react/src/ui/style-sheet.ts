/**
 * Puts a stylesheet in the document once, under its element id, however many components ask. `first` puts it at
 * the start of <head>, so that the app's own stylesheets come later and win ties (the package's base sheet, the
 * dashboard's colour tokens); otherwise it goes last (a page's own rules on top of the base sheet).
 */
export function injectStyleSheet(id: string, css: string, options: { doc?: Document; first?: boolean } = {}) {
  const doc = options.doc ?? document;
  if (doc.getElementById(id)) return;
  const style = doc.createElement("style");
  style.id = id;
  style.textContent = css;
  if (options.first) doc.head.prepend(style);
  else doc.head.append(style);
}
