import { useState } from "react";
import { Icon } from "./icons.tsx";

const KEY = "gatehouse-dashboard-theme";

export function initialTheme(): "light" | "dark" {
  const saved = localStorage.getItem(KEY);
  if (saved === "light" || saved === "dark") return saved;
  return window.matchMedia?.("(prefers-color-scheme: dark)").matches ? "dark" : "light";
}

export function applyTheme(theme: "light" | "dark") {
  document.documentElement.dataset.theme = theme;
}

export function ThemeToggle() {
  const [theme, setTheme] = useState(initialTheme);
  const next = theme === "dark" ? "light" : "dark";
  return (
    <button
      type="button"
      className="btn ghost sm"
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
