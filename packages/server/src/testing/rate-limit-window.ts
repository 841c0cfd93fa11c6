import { afterEach, beforeEach, vi } from "vitest";

/**
 * Rate-limit windows are fixed and start at multiples of their length (every limit's length is a multiple of
 * 300 s), so a burst that straddles a window's edge splits its count and "exactly N pass" no longer holds. Before
 * each test of the calling file, when fewer than 30 s remain before an edge, this moves `Date` (only `Date`; it
 * keeps running) just past the edge, so a burst lands in one window. Nothing waits.
 */
export function keepBurstsInOneRateLimitWindow(): void {
  const edgeMs = 300_000;
  const marginMs = 30_000;
  beforeEach(() => {
    const now = Date.now();
    const left = edgeMs - (now % edgeMs);
    if (left > marginMs) return;
    vi.useFakeTimers({ toFake: ["Date"], shouldAdvanceTime: true });
    vi.setSystemTime(now + left + 1_000);
  });
  afterEach(() => {
    vi.useRealTimers();
  });
}
