/** The grants of included items over time (PROTOCOL-EXTRA §2.2): repeats, the three expiry rules, ends and refunds. */
import { describe, expect, it } from "vitest";
import { currentPeriod, type IncludedItem, includedItemGrants, type PurchaseTimeline } from "./grants.ts";
import { quantityAt } from "./ledger.ts";

const DAY = 24 * 3600_000;
const start = new Date("2026-01-01T00:00:00Z");
const at = (days: number) => new Date(start.getTime() + days * DAY);

function purchase(overrides: Partial<PurchaseTimeline> = {}): PurchaseTimeline {
  return {
    createdAt: start,
    quantity: 1,
    kind: "subscription",
    interval: [1, "month"],
    endsAt: null,
    refundedAt: null,
    ...overrides,
  };
}
const held = (p: PurchaseTimeline, item: IncludedItem, days: number) =>
  quantityAt(includedItemGrants(p, item, at(days)), at(days));

describe("included item grants", () => {
  const monthly = (expires: IncludedItem["expires"]): IncludedItem => ({
    quantity: 10,
    repeat: [1, "month"],
    expires,
  });

  it("grants again every interval: replacing the last grant, adding to it until the end, or keeping all", () => {
    expect([0, 29, 30, 65].map((d) => held(purchase(), monthly("when-repeated"), d))).toEqual([
      10, 10, 10, 10,
    ]);
    expect([0, 29, 30, 65].map((d) => held(purchase(), monthly("when-purchase-expires"), d))).toEqual([
      10, 10, 20, 30,
    ]);
    expect([0, 30, 65].map((d) => held(purchase(), monthly("never"), d))).toEqual([10, 20, 30]);
  });

  it("stops granting at the purchase's end, and takes back what expires with it", () => {
    const ended = purchase({ endsAt: at(45) });
    expect(held(ended, monthly("when-repeated"), 44)).toBe(10);
    expect(held(ended, monthly("when-repeated"), 46)).toBe(0);
    expect(held(ended, monthly("when-purchase-expires"), 46)).toBe(0);
    expect(held(ended, monthly("never"), 100)).toBe(20);
  });

  it("multiplies by the purchase quantity, grants once without a repeat, and takes everything back on a refund", () => {
    const once: IncludedItem = { quantity: 5, repeat: "never", expires: "never" };
    const pack = purchase({ kind: "one_time", interval: null, quantity: 3 });
    expect(held(pack, once, 400)).toBe(15);
    expect(includedItemGrants(pack, once, at(400))).toHaveLength(1);
    expect(held({ ...pack, refundedAt: at(10) }, once, 11)).toBe(0);
    expect(held(purchase(), { quantity: 0, repeat: "never", expires: "never" }, 5)).toBe(0);
  });

  it("puts a subscription's period boundaries at whole intervals from its start", () => {
    expect(currentPeriod(purchase(), at(31))).toEqual({ start: at(30), end: at(60) });
    expect(currentPeriod(purchase({ kind: "one_time", interval: null }), at(31))).toBeNull();
  });
});
