import { GatehouseClientApp } from "@gatehouse/js";
import { navigate } from "@gatehouse/react";
import { demoConfig } from "./config.ts";

const config = demoConfig();
if (!config.projectId) throw new Error("The demo needs a project (main.tsx shows how to connect one).");

/** The demo's one client app: cookies keep the session across reloads, and redirects stay in the page. */
export const gatehouse = new GatehouseClientApp({
  projectId: config.projectId,
  baseUrl: config.baseUrl,
  ...(config.publishableClientKey ? { publishableClientKey: config.publishableClientKey } : {}),
  tokenStore: "cookie",
  redirectMethod: { navigate: (to) => navigate(to) },
  urls: { handler: "/handler", afterSignOut: "/" },
});
