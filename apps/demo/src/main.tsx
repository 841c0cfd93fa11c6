import { lazy, StrictMode, Suspense } from "react";
import { createRoot } from "react-dom/client";
import { demoConfig } from "./config.ts";
import { SetupPage } from "./pages/setup.tsx";
import "./styles.css";

// The app (and its client app) only once there is a project to connect to.
const App = lazy(async () => ({ default: (await import("./app.tsx")).App }));

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    {demoConfig().projectId ? (
      <Suspense>
        <App />
      </Suspense>
    ) : (
      <SetupPage />
    )}
  </StrictMode>,
);
