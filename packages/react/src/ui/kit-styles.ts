import { useInsertionEffect } from "react";
import { injectStyleSheet } from "./style-sheet.ts";

/**
 * The rules of the kit's parts that the package's own components do not use (label / value rows, the pager), so
 * the main entry's stylesheet does not carry them: the part injects them when it first renders. Colours are the
 * `--gh-*` variables, which the provider's root or the dashboard's `:root` define.
 */
const KIT_CSS = `
.gh-label-values { display: grid; grid-template-columns: minmax(120px, 170px) 1fr; gap: 10px 16px; align-items: center; margin: 0; }
.gh-label-value { display: contents; }
.gh-label-values dt { color: var(--gh-text-muted); font-size: 13px; }
.gh-label-values dd { margin: 0; min-width: 0; overflow-wrap: anywhere; }
@media (max-width: 760px) { .gh-label-values { grid-template-columns: 1fr; gap: 4px; } .gh-label-values dd { margin-bottom: 8px; } }
.gh-pager-label { margin-right: auto; align-self: center; color: var(--gh-text-muted); font-size: 12.5px; }
`;

export function useKitStyles(): void {
  useInsertionEffect(() => injectStyleSheet("gatehouse-kit-styles", KIT_CSS), []);
}
