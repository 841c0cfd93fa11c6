import type { GatehouseClientApp } from "@gatehouse/js";
import { type ReactNode, useInsertionEffect, useMemo } from "react";
import { GatehouseContext, type GatehouseContextValue, type GatehouseTheme } from "./context.ts";
import { defaultStrings, type GatehouseStrings } from "./strings.ts";
import { GATEHOUSE_CSS, STYLE_ELEMENT_ID } from "./styles.ts";
import { injectStyleSheet } from "./ui/style-sheet.ts";

export type GatehouseProviderProps = {
  app: GatehouseClientApp;
  /** `system` follows the operating system's setting; default `system`. */
  theme?: GatehouseTheme;
  /** Translations or rewordings of any of the component texts. */
  strings?: Partial<GatehouseStrings>;
  children?: ReactNode;
};

/** Puts the stylesheet in the document once, however many providers mount. */
export function injectStyles(doc: Document = document): void {
  // First in <head>, so that the app's own stylesheets come later and win ties when re-theming.
  injectStyleSheet(STYLE_ELEMENT_ID, GATEHOUSE_CSS, { doc, first: true });
}

/** Gives the components and hooks below it the app, the theme and the texts. */
export function GatehouseProvider({ app, theme = "system", strings, children }: GatehouseProviderProps) {
  useInsertionEffect(() => {
    if (typeof document !== "undefined") injectStyles();
  }, []);
  const value = useMemo<GatehouseContextValue>(
    () => ({ app, theme, strings: strings ? { ...defaultStrings, ...strings } : defaultStrings }),
    [app, theme, strings],
  );
  return <GatehouseContext.Provider value={value}>{children}</GatehouseContext.Provider>;
}
