/**
 * The metrics window (PROTOCOL-EXTRA §4.1): the 30 days before today (UTC) plus today, as 31 daily points, oldest
 * first, zero-filled. Every event and email figure reads only this window (an index range scan), so its cost
 * follows recent activity, never the length of a project's history.
 */
export const WINDOW_DAYS = 31;
const DAY_MS = 24 * 3600 * 1000;

export type MetricsWindow = {
  /** `YYYY-MM-DD` of each day, oldest first (31). */
  days: string[];
  /** Midnight UTC of the first day. */
  start: Date;
  /** The day before `start`: the previous day of the first day, for "retained". */
  dayBeforeStart: Date;
  /** When the metrics were asked for. */
  now: Date;
};

export function metricsWindow(now = new Date()): MetricsWindow {
  const today = Math.floor(now.getTime() / DAY_MS) * DAY_MS;
  const start = today - (WINDOW_DAYS - 1) * DAY_MS;
  const days = Array.from({ length: WINDOW_DAYS }, (_, index) => dayKey(new Date(start + index * DAY_MS)));
  return { days, start: new Date(start), dayBeforeStart: new Date(start - DAY_MS), now };
}

/** `YYYY-MM-DD` in UTC, the key that SQL's `to_char(x at time zone 'UTC', 'YYYY-MM-DD')` gives. */
export function dayKey(date: Date): string {
  return date.toISOString().slice(0, 10);
}

export type DataPoint = { date: string; activity: number };

/** One point per window day, from the days that have a value. */
export function series(window: MetricsWindow, values: ReadonlyMap<string, number>): DataPoint[] {
  return window.days.map((date) => ({ date, activity: values.get(date) ?? 0 }));
}

/** `part / whole` as a percentage with 2 decimals, capped at 100; 0 when there is no whole. */
export function percentage(part: number, whole: number): number {
  if (whole <= 0) return 0;
  return Math.min(100, Math.round((part / whole) * 10_000) / 100);
}
