/**
 * "Chrome on macOS" from a session's user agent (the `last_used_user_agent` Gatehouse keeps on sessions). A few
 * rules for the browsers and systems people use, checked in an order that respects how user agents borrow each
 * other's names (Edge and Opera say "Chrome", Chrome says "Safari", every iPhone browser says "Safari").
 */
export type Device = { browser: string | null; os: string | null };

const BROWSERS: [RegExp, string][] = [
  [/\bEdg(?:e|A|iOS)?\/[\d.]+/, "Edge"],
  [/\bOPR\/[\d.]+|\bOpera\b/, "Opera"],
  [/\bSamsungBrowser\/[\d.]+/, "Samsung Internet"],
  [/\bFirefox\/[\d.]+|\bFxiOS\/[\d.]+/, "Firefox"],
  [/\bCriOS\/[\d.]+/, "Chrome"],
  [/\bHeadlessChrome\/[\d.]+/, "Headless Chrome"],
  [/\bChrom(?:e|ium)\/[\d.]+/, "Chrome"],
  [/\bVersion\/[\d.]+.*\bSafari\/[\d.]+/, "Safari"],
  [/^curl\//, "curl"],
  [/^node\b|\bnode-fetch\b|^undici\b/i, "Node.js"],
];

const SYSTEMS: [RegExp, string][] = [
  [/\biPhone\b/, "iOS"],
  [/\biPad\b/, "iPadOS"],
  [/\bAndroid\b/, "Android"],
  [/\bCrOS\b/, "ChromeOS"],
  [/\bWindows\b/, "Windows"],
  [/\bMac OS X\b|\bMacintosh\b/, "macOS"],
  [/\bLinux\b/, "Linux"],
];

export function parseUserAgent(userAgent: string | null | undefined): Device {
  if (!userAgent) return { browser: null, os: null };
  const browser = BROWSERS.find(([pattern]) => pattern.test(userAgent))?.[1] ?? null;
  const os = SYSTEMS.find(([pattern]) => pattern.test(userAgent))?.[1] ?? null;
  return { browser, os };
}

/** What the sessions table says: "Chrome on macOS", "Firefox", "Linux", or "Unknown device". */
export function describeDevice(userAgent: string | null | undefined): string {
  const { browser, os } = parseUserAgent(userAgent);
  if (browser && os) return `${browser} on ${os}`;
  return browser ?? os ?? "Unknown device";
}
