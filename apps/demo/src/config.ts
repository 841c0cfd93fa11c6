export type DemoConfig = { baseUrl: string; projectId: string; publishableClientKey: string | null };

declare const __GATEHOUSE_DEMO_DEFAULTS__: DemoConfig;

declare global {
  interface Window {
    /** Set by a page that serves a built demo for another project (the browser tests do). */
    __GATEHOUSE_DEMO__?: Partial<DemoConfig>;
  }
}

/** Where the demo's Gatehouse is: what the page was served with, else what it was built with. */
export function demoConfig(): DemoConfig {
  return { ...__GATEHOUSE_DEMO_DEFAULTS__, ...(window.__GATEHOUSE_DEMO__ ?? {}) };
}
