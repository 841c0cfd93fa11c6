/** `projectId` is null when the demo was started without a project (see vite.config.ts). */
export type DemoConfig = { baseUrl: string; projectId: string | null; publishableClientKey: string | null };

declare const __GATEHOUSE_DEMO_DEFAULTS__: DemoConfig;

declare global {
  interface Window {
    /** Set by a page that serves a built demo for another project (the browser tests do). */
    __GATEHOUSE_DEMO__?: Partial<DemoConfig>;
  }
}

/** Where the demo's Gatehouse is: what the page was served with, else what it was built with. */
export function demoConfig(): DemoConfig {
  const config = { ...__GATEHOUSE_DEMO_DEFAULTS__, ...(window.__GATEHOUSE_DEMO__ ?? {}) };
  // Never the dashboard's own project: the demo's sign-ups would become dashboard accounts.
  return config.projectId === "internal" ? { ...config, projectId: null } : config;
}
