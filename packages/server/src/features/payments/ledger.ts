/**
 * Item quantities from the append-only ledger (`item_quantity_changes`, PROTOCOL-EXTRA §2.2).
 *
 * What a quantity is, when changes expire: a positive change is a grant; a negative change uses up grants, those
 * that expire soonest first, and what no grant covers is owed (the quantity goes below zero) until a later grant
 * pays it. When a grant expires, only what is left of it goes. A negative change with an expiry is given back then.
 * So 10 credits granted for a month of which 3 are used leave 0 at the month's end, not -3; without any expiring
 * grant this is simply the sum of the changes still in force, which is how it is computed in that (usual) case.
 *
 * Writes that must not take the quantity below zero check and insert under one advisory lock per customer and item,
 * in one transaction, so parallel decrements cannot both spend the same units (PGlite and PostgreSQL alike).
 */
import { knownError } from "@gatehouse/shared";
import { and, asc, eq, sql } from "drizzle-orm";
import { randomUuid } from "../../crypto/index.ts";
import type { Database } from "../../db/index.ts";
import { type Customer, includedItemsOf } from "./catalogue.ts";
import { includedItemGrants, type LedgerEntry } from "./grants.ts";
import { listCustomerPurchases, timelineOf } from "./purchases.ts";
import { itemQuantityChanges } from "./schema.ts";

type Grant = { left: number; expiresAt: number | null };

type LedgerEvent =
  | { at: number; order: 0; kind: "expire"; grant: number }
  | { at: number; order: 0; kind: "give-back"; amount: number }
  | { at: number; order: 1; kind: "change"; entry: number };

/**
 * The quantity at `now`, replaying the entries in time order. At one instant, expiries come before changes: a grant
 * that expires at t cannot pay for a use at t.
 */
export function quantityAt(entries: readonly LedgerEntry[], now: Date): number {
  const nowMs = now.getTime();
  const events: LedgerEvent[] = [];
  entries.forEach((entry, index) => {
    events.push({ at: entry.createdAt.getTime(), order: 1, kind: "change", entry: index });
    const expiresAt = entry.expiresAt?.getTime();
    if (expiresAt === undefined || expiresAt > nowMs) return;
    if (entry.quantity > 0) events.push({ at: expiresAt, order: 0, kind: "expire", grant: index });
    if (entry.quantity < 0)
      events.push({ at: expiresAt, order: 0, kind: "give-back", amount: -entry.quantity });
  });
  // Stable: changes at the same instant keep the order they were read in.
  events.sort((a, b) => a.at - b.at || a.order - b.order);

  const grants = new Map<number, Grant>();
  let owed = 0;
  const grant = (key: number, amount: number, expiresAt: number | null) => {
    const paid = Math.min(owed, amount);
    owed -= paid;
    if (amount > paid) grants.set(key, { left: amount - paid, expiresAt });
  };
  const use = (amount: number) => {
    let remaining = amount;
    const soonestFirst = [...grants.values()].sort(
      (a, b) => (a.expiresAt ?? Number.POSITIVE_INFINITY) - (b.expiresAt ?? Number.POSITIVE_INFINITY),
    );
    for (const held of soonestFirst) {
      if (remaining === 0) break;
      const taken = Math.min(held.left, remaining);
      held.left -= taken;
      remaining -= taken;
    }
    owed += remaining;
  };

  let givenBack = 0;
  for (const event of events) {
    if (event.kind === "expire") {
      grants.delete(event.grant);
    } else if (event.kind === "give-back") {
      // Given back for good: its own key, so that no expiry event can match it.
      grant(-1 - givenBack++, event.amount, null);
    } else {
      const entry = entries[event.entry]!;
      if (entry.quantity > 0) grant(event.entry, entry.quantity, entry.expiresAt?.getTime() ?? null);
      else if (entry.quantity < 0) use(-entry.quantity);
    }
  }
  let held = 0;
  for (const { left } of grants.values()) held += left;
  return held - owed;
}

export type ItemKey = { projectId: string; customer: Customer; itemId: string };

function whereKey(key: ItemKey) {
  return and(
    eq(itemQuantityChanges.projectId, key.projectId),
    eq(itemQuantityChanges.customerType, key.customer.type),
    eq(itemQuantityChanges.customerId, key.customer.id),
    eq(itemQuantityChanges.itemId, key.itemId),
  );
}

/** The grants of the item by the customer's purchases, as ledger entries (grants.ts). */
async function purchaseGrants(db: Database, key: ItemKey, now: Date): Promise<LedgerEntry[]> {
  const purchases = await listCustomerPurchases(db, key.projectId, key.customer);
  return purchases.flatMap((purchase) => {
    const included = includedItemsOf(purchase.product)[key.itemId];
    return included ? includedItemGrants(timelineOf(purchase), included, now) : [];
  });
}

/**
 * The customer's quantity of the item at `now`: manual changes plus what its purchases include; 0 for an item never
 * changed or granted.
 */
export async function itemQuantity(db: Database, key: ItemKey, now: Date = new Date()): Promise<number> {
  const [[summary], granted] = await Promise.all([
    db
      .select({
        inForce: sql<string>`coalesce(sum(${itemQuantityChanges.quantity}) filter (where ${itemQuantityChanges.expiresAt} is null or ${itemQuantityChanges.expiresAt} > ${now}), 0)`,
        expiringGrants: sql<number>`count(*) filter (where ${itemQuantityChanges.quantity} > 0 and ${itemQuantityChanges.expiresAt} is not null)`,
      })
      .from(itemQuantityChanges)
      .where(whereKey(key)),
    purchaseGrants(db, key, now),
  ]);
  // Without expiring grants, order does not matter and the replay would give this same sum.
  const expiringGrants =
    Number(summary?.expiringGrants ?? 0) + granted.filter((g) => g.expiresAt !== null).length;
  if (expiringGrants === 0) {
    return Number(summary?.inForce ?? 0) + granted.reduce((sum, grant) => sum + grant.quantity, 0);
  }
  const rows = await db
    .select({
      quantity: itemQuantityChanges.quantity,
      createdAt: itemQuantityChanges.createdAt,
      expiresAt: itemQuantityChanges.expiresAt,
    })
    .from(itemQuantityChanges)
    .where(whereKey(key))
    .orderBy(asc(itemQuantityChanges.createdAt), asc(itemQuantityChanges.id));
  const entries = [...granted, ...rows].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
  return quantityAt(entries, now);
}

export type QuantityChange = {
  delta: number;
  expiresAt: Date | null;
  description: string | null;
  /** Without it, a change that would leave the quantity below zero is refused (ITEM_QUANTITY_INSUFFICIENT_AMOUNT). */
  allowNegative: boolean;
};

/** Appends a change; the check against zero and the insert are one step under the customer-item lock. */
export async function changeItemQuantity(db: Database, key: ItemKey, change: QuantityChange): Promise<void> {
  await db.transaction(async (tx) => {
    const lockName = JSON.stringify([
      "payments-item",
      key.projectId,
      key.customer.type,
      key.customer.id,
      key.itemId,
    ]);
    await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${lockName}, 0))`);
    const now = new Date();
    if (!change.allowNegative) {
      const current = await itemQuantity(tx as Database, key, now);
      if (current + change.delta < 0) {
        throw knownError("ITEM_QUANTITY_INSUFFICIENT_AMOUNT", {
          item_id: key.itemId,
          customer_id: key.customer.id,
          quantity: change.delta,
        });
      }
    }
    await tx.insert(itemQuantityChanges).values({
      projectId: key.projectId,
      id: randomUuid(),
      customerType: key.customer.type,
      customerId: key.customer.id,
      itemId: key.itemId,
      quantity: change.delta,
      description: change.description,
      expiresAt: change.expiresAt,
      createdAt: now,
    });
  });
}
