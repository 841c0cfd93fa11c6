/**
 * True when the text holds an ASCII control character, a space, DEL, or any other whitespace.
 *
 * Why: the WHATWG URL parser (what browsers use) silently removes tabs and newlines anywhere in a URL and trims
 * leading and trailing controls and spaces. So "java\tscript:alert(1)" becomes "javascript:alert(1)" and
 * "/\t/evil.com" becomes "//evil.com". A legitimate URL never needs raw whitespace (it is percent-encoded), so
 * we refuse such input rather than guess what the browser will make of it.
 */
export function hasControlOrWhitespace(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code <= 0x20 || code === 0x7f) return true;
  }
  return /\s/u.test(text);
}

/** True when every character is printable ASCII. */
export function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) > 0x7e) return false;
  }
  return true;
}
