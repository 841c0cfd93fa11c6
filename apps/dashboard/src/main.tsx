import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./app.tsx";
import "./styles.css";
// After styles.css: the phone layout overrides it below 760 px.
import "./phone.css";
import { applyTheme, initialTheme, installColourTokens } from "./ui/theme.tsx";
import { ToastProvider } from "./ui/toast.tsx";

installColourTokens();
applyTheme(initialTheme());

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <ToastProvider>
      <App />
    </ToastProvider>
  </StrictMode>,
);
