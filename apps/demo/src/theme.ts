import type { GatehouseTheme } from "@gatehouse/react";
import { useEffect, useState } from "react";

const KEY = "gatehouse-demo-theme";

function stored(): GatehouseTheme {
  const value = typeof localStorage === "undefined" ? null : localStorage.getItem(KEY);
  return value === "light" || value === "dark" ? value : "system";
}

/** The demo's theme choice, kept in localStorage and mirrored on <html> for the demo's own styles. */
export function useTheme(): [GatehouseTheme, (theme: GatehouseTheme) => void] {
  const [theme, setTheme] = useState<GatehouseTheme>(stored);
  useEffect(() => {
    document.documentElement.dataset.theme = theme;
    if (theme === "system") localStorage.removeItem(KEY);
    else localStorage.setItem(KEY, theme);
  }, [theme]);
  return [theme, setTheme];
}
