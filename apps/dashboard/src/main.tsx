import { injectStyles } from "@gatehouse/react";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./app.tsx";
import "./styles.css";
// After styles.css: the phone layout overrides it below 760 px.
import "./phone.css";
import { applyTheme, initialTheme, installColourTokens } from "./ui/theme.tsx";
import { ToastProvider } from "./ui/toast.tsx";

// The kit's stylesheet (gh-* classes: buttons, avatars, spinners) on every page, the ones outside the provider too.
injectStyles();
installColourTokens();
applyTheme(initialTheme());

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <ToastProvider>
      <App />
    </ToastProvider>
  </StrictMode>,
);
