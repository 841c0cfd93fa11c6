/**
 * What a purchase gives, in time (PROTOCOL-EXTRA §2.2), as pure functions of the purchase row and the clock: the
 * periods of a subscription, and the item grants its product includes, as ledger entries that ledger.ts replays
 * beside the manual changes. Nothing here is stored: a repeat that falls due simply appears when it is due, so
 * no job has to run for monthly credits to arrive or for a cancelled plan's items to go.
 *
 * Interval lengths are the protocol's: a month is 30 days and a year 365.
 */

/** One change of a quantity, stored (the ledger) or derived from a purchase (here). */
export type LedgerEntry = { quantity: number; createdAt: Date; expiresAt: Date | null };

const DAY_MS = 24 * 3600 * 1000;
const UNIT_DAYS = { day: 1, week: 7, month: 30, year: 365 } as const;

/**
 * A daily repeat for 27 years: past this many grants of one item by one purchase we stop counting, so that a
 * mistaken `[1, "day"]` on a years-old purchase cannot make one quantity read replay millions of entries.
 */
export const MAX_REPEATS_PER_PURCHASE = 10_000;

export type Interval = readonly [number, string];

/** The interval in milliseconds; null for none or a zero-length one (which never repeats). */
export function intervalMs(interval: Interval | null | undefined): number | null {
  if (!interval) return null;
  const [count, unit] = interval;
  const days = UNIT_DAYS[unit as keyof typeof UNIT_DAYS];
  if (days === undefined || !Number.isInteger(count) || count <= 0) return null;
  return count * days * DAY_MS;
}

/** The parts of a purchase row that decide what it grants and when. */
export type PurchaseTimeline = {
  createdAt: Date;
  quantity: number;
  kind: "one_time" | "subscription";
  interval: Interval | null;
  endsAt: Date | null;
  refundedAt: Date | null;
};

/** When the purchase stops granting: a subscription's end, a refund, whichever is first; null while it lasts. */
export function purchaseEnd(purchase: PurchaseTimeline): Date | null {
  const ends = [purchase.endsAt, purchase.refundedAt].filter((date): date is Date => date !== null);
  if (ends.length === 0) return null;
  return new Date(Math.min(...ends.map((date) => date.getTime())));
}

/** True while the customer holds the product: bought, not refunded, not past a cancelled subscription's end. */
export function isPurchaseLive(purchase: PurchaseTimeline, now: Date): boolean {
  const end = purchaseEnd(purchase);
  return end === null || end.getTime() > now.getTime();
}

/**
 * A subscription's current period (it renews by itself until cancelled; `endsAt` closes the last one). Null for
 * one-time purchases.
 */
export function currentPeriod(purchase: PurchaseTimeline, now: Date): { start: Date; end: Date } | null {
  const length = intervalMs(purchase.interval);
  if (purchase.kind !== "subscription" || length === null) return null;
  const start = purchase.createdAt.getTime();
  const elapsed = Math.max(0, now.getTime() - start);
  const index = Math.floor(elapsed / length);
  const periodStart = start + index * length;
  return { start: new Date(periodStart), end: new Date(periodStart + length) };
}

export type IncludedItem = {
  quantity: number;
  repeat: "never" | Interval;
  expires: "never" | "when-purchase-expires" | "when-repeated";
};

/**
 * The grants of one included item up to `now`, as ledger entries: `quantity × purchase quantity` at the purchase
 * and again at every repeat while the purchase lasts. Each grant expires as its `expires` rule says: at the next
 * repeat ("when-repeated", also at the end), at the purchase's end ("when-purchase-expires"), or never.
 */
export function includedItemGrants(purchase: PurchaseTimeline, item: IncludedItem, now: Date): LedgerEntry[] {
  const amount = item.quantity * purchase.quantity;
  if (amount <= 0) return [];
  const start = purchase.createdAt.getTime();
  const nowMs = now.getTime();
  if (start > nowMs) return [];
  const end = purchaseEnd(purchase)?.getTime() ?? null;
  const repeatMs = item.repeat === "never" ? null : intervalMs(item.repeat);

  // A refund undoes the purchase: even grants that would never expire go when the money goes back.
  const refundedAt = purchase.refundedAt?.getTime() ?? null;
  const expiryOf = (nextRepeat: number | null): Date | null => {
    if (item.expires === "never") return refundedAt === null ? null : new Date(refundedAt);
    if (item.expires === "when-repeated" && nextRepeat !== null) {
      return new Date(end === null ? nextRepeat : Math.min(nextRepeat, end));
    }
    return end === null ? null : new Date(end);
  };

  if (repeatMs === null) return [{ quantity: amount, createdAt: new Date(start), expiresAt: expiryOf(null) }];

  const grants: LedgerEntry[] = [];
  for (let index = 0; index < MAX_REPEATS_PER_PURCHASE; index++) {
    const at = start + index * repeatMs;
    if (at > nowMs || (end !== null && at >= end)) break;
    grants.push({ quantity: amount, createdAt: new Date(at), expiresAt: expiryOf(at + repeatMs) });
  }
  return grants;
}
