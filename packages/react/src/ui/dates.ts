/** Dates as people read them, in their own locale; `empty` stands for a date that is missing or invalid. */
export function formatDate(date: Date | null | undefined, empty = "—"): string {
  return date && !Number.isNaN(date.getTime())
    ? date.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" })
    : empty;
}

/** The day alone ("Mar 4, 2026"), for dates whose time of day says nothing. */
export function formatDay(date: Date | null | undefined, empty = "—"): string {
  return date && !Number.isNaN(date.getTime())
    ? date.toLocaleDateString(undefined, { dateStyle: "medium" })
    : empty;
}
