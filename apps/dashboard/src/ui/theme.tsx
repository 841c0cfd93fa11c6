import { gatehouseTokensCss } from "@gatehouse/react";
import { buttonClass, injectStyleSheet } from "@gatehouse/react/ui";
import { useState, useSyncExternalStore } from "react";
import { Icon } from "./icons.tsx";

const KEY = "gatehouse-dashboard-theme";

export function initialTheme(): "light" | "dark" {
  const saved = localStorage.getItem(KEY);
  if (saved === "light" || saved === "dark") return saved;
  return window.matchMedia?.("(prefers-color-scheme: dark)").matches ? "dark" : "light";
}

/**
 * The one palette: @gatehouse/react's `--gh-*` variables on the document root, dark when `data-theme` says so.
 * First in <head>, before styles.css, which maps the dashboard's own names onto them.
 */
export function installColourTokens(doc: Document = document): void {
  injectStyleSheet(
    "dashboard-tokens",
    gatehouseTokensCss({ light: ":root", dark: ':root[data-theme="dark"]' }),
    {
      doc,
      first: true,
    },
  );
}

const listeners = new Set<() => void>();

export function applyTheme(theme: "light" | "dark") {
  document.documentElement.dataset.theme = theme;
  for (const listener of listeners) listener();
}

/** The applied theme, so that the Gatehouse components (which theme themselves) follow the toggle. */
export function useTheme(): "light" | "dark" {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => (document.documentElement.dataset.theme === "dark" ? "dark" : "light"),
  );
}

export function ThemeToggle() {
  const [theme, setTheme] = useState(initialTheme);
  const next = theme === "dark" ? "light" : "dark";
  return (
    <button
      type="button"
      className={buttonClass({ variant: "ghost", small: true })}
      aria-label={`Switch to ${next} mode`}
      data-testid="theme-toggle"
      onClick={() => {
        localStorage.setItem(KEY, next);
        applyTheme(next);
        setTheme(next);
      }}
    >
      <Icon name={theme === "dark" ? "sun" : "moon"} />
    </button>
  );
}
