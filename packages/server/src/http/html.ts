/**
 * Escapes text for HTML element content and quoted attribute values. Characters become numeric references
 * (`&#60;`), which mean the same in every HTML context and need no entity table.
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}
