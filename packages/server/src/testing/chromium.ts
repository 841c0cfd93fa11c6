import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";

/** Debian's Chromium, which `.ci/run` installs. Browser tests fail, never skip, where it is missing. */
export const CHROMIUM = "/usr/bin/chromium";

/**
 * Headless, no sandbox (tests run as root), and no background traffic: this machine's closed network refuses
 * Chromium's own connections, many at a time, if they are left on.
 */
const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** The one way browser tests start Chromium (Playwright gives each context a fresh profile). */
export function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`Browser tests need Debian's Chromium at ${CHROMIUM}: apt-get install -y chromium`);
  }
  return chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
}
