/**
 * `GET /internal/payments/transactions` (PROTOCOL-EXTRA §2.5): the project's purchases and manual item changes as
 * one list of transactions, newest first, paged by a cursor that is base64url JSON `{createdAtMillis, txnId}`.
 * Each page reads at most `limit + 1` rows from each table, through their `(project_id, created_at)` indexes.
 */
import { and, desc, eq, isNotNull, lt, or, type SQL } from "drizzle-orm";
import type { CustomerType } from "../../config/payments.ts";
import type { Database } from "../../db/index.ts";
import { isUuid } from "../../fields/ids.ts";
import { StatusError } from "../../http/status-error.ts";
import { itemQuantityChanges, type ProductPurchaseRow, productPurchases } from "./schema.ts";

export const TRANSACTION_TYPES = [
  "purchase",
  "subscription-cancellation",
  "subscription-renewal",
  "manual-item-quantity-change",
  "chargeback",
  "product-change",
] as const;
export type TransactionType = (typeof TRANSACTION_TYPES)[number];

type Cursor = { createdAtMillis: number; txnId: string };

export function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify(cursor)).toString("base64url");
}

export function decodeCursor(value: string): Cursor {
  try {
    const parsed = JSON.parse(Buffer.from(value, "base64url").toString("utf8")) as Partial<Cursor>;
    if (
      typeof parsed.createdAtMillis === "number" &&
      Number.isFinite(parsed.createdAtMillis) &&
      typeof parsed.txnId === "string" &&
      isUuid(parsed.txnId)
    ) {
      return { createdAtMillis: parsed.createdAtMillis, txnId: parsed.txnId };
    }
  } catch {
    // Reported below, as any other unreadable cursor.
  }
  throw new StatusError(400, "The cursor is not one this route gave out.");
}

const noAdjustment = { adjusted_transaction_id: null, adjusted_entry_index: null };

export type Transaction = {
  id: string;
  created_at_millis: number;
  effective_at_millis: number;
  type: TransactionType | null;
  entries: Array<Record<string, unknown>>;
  adjusted_by: Array<{ transaction_id: string; entry_index: number }>;
  test_mode: boolean;
};

export type TransactionQuery = {
  projectId: string;
  limit: number;
  cursor?: Cursor;
  type?: TransactionType;
  customerType?: CustomerType;
  /** Our addition to the protocol's filters: one customer's history (the dashboard's customer page). */
  customerId?: string;
};

function before(
  table: typeof productPurchases | typeof itemQuantityChanges,
  cursor: Cursor | undefined,
): SQL | undefined {
  if (!cursor) return undefined;
  const at = new Date(cursor.createdAtMillis);
  return or(lt(table.createdAt, at), and(eq(table.createdAt, at), lt(table.id, cursor.txnId)));
}

/** The project's rows, of the customers the query asks about. */
function ofCustomers(table: typeof productPurchases | typeof itemQuantityChanges, query: TransactionQuery) {
  return [
    eq(table.projectId, query.projectId),
    query.customerType ? eq(table.customerType, query.customerType) : undefined,
    query.customerId ? eq(table.customerId, query.customerId) : undefined,
  ];
}

/** The same for refunds, which are placed in time by when they were issued. */
function refundsBefore(cursor: Cursor | undefined): SQL | undefined {
  if (!cursor) return undefined;
  const at = new Date(cursor.createdAtMillis);
  return or(
    lt(productPurchases.refundIssuedAt, at),
    and(eq(productPurchases.refundIssuedAt, at), lt(productPurchases.refundId, cursor.txnId)),
  );
}

/** The entries of an owner's refund (refunds.ts): the money given back, then the product taken back, if any. */
function refundEntries(row: ProductPurchaseRow): Array<Record<string, unknown>> {
  const adjusts = { adjusted_transaction_id: row.id, adjusted_entry_index: 0 };
  const entries: Array<Record<string, unknown>> = [];
  const amount = row.refundAmountUsd ?? "0";
  if (amount !== "0.00" && amount !== "0") {
    entries.push({
      type: "money_transfer",
      customer_type: row.customerType,
      customer_id: row.customerId,
      charged_amount: { USD: `-${amount}` },
      net_amount: { USD: `-${amount}` },
      ...adjusts,
    });
  }
  if ((row.refundQuantity ?? 0) > 0)
    entries.push({ type: "product_revocation", quantity: row.refundQuantity, ...adjusts });
  return entries;
}

export async function listTransactions(
  db: Database,
  query: TransactionQuery,
): Promise<{ transactions: Transaction[]; next_cursor: string | null }> {
  const wantPurchases = query.type === undefined || query.type === "purchase";
  const wantChanges = query.type === undefined || query.type === "manual-item-quantity-change";
  // Refunds have no type of the protocol's list, so a filter by type leaves them out.
  const wantRefunds = query.type === undefined;
  const take = query.limit + 1;
  const [purchases, changes, refunds] = await Promise.all([
    wantPurchases
      ? db
          .select()
          .from(productPurchases)
          .where(and(...ofCustomers(productPurchases, query), before(productPurchases, query.cursor)))
          .orderBy(desc(productPurchases.createdAt), desc(productPurchases.id))
          .limit(take)
      : [],
    wantChanges
      ? db
          .select()
          .from(itemQuantityChanges)
          .where(and(...ofCustomers(itemQuantityChanges, query), before(itemQuantityChanges, query.cursor)))
          .orderBy(desc(itemQuantityChanges.createdAt), desc(itemQuantityChanges.id))
          .limit(take)
      : [],
    wantRefunds
      ? db
          .select()
          .from(productPurchases)
          .where(
            and(
              ...ofCustomers(productPurchases, query),
              isNotNull(productPurchases.refundIssuedAt),
              refundsBefore(query.cursor),
            ),
          )
          .orderBy(desc(productPurchases.refundIssuedAt), desc(productPurchases.refundId))
          .limit(take)
      : [],
  ]);

  const transactions: Transaction[] = [
    ...purchases.map((row) => ({
      id: row.id,
      created_at_millis: row.createdAt.getTime(),
      effective_at_millis: row.createdAt.getTime(),
      type: "purchase" as const,
      entries: [
        {
          type: "product_grant",
          customer_type: row.customerType,
          customer_id: row.customerId,
          product_id: row.productId,
          product: row.product,
          price_id: row.priceId,
          quantity: row.quantity,
          ...(row.kind === "subscription" ? { subscription_id: row.id } : { one_time_purchase_id: row.id }),
          ...noAdjustment,
        },
      ],
      adjusted_by: row.refundId
        ? refundEntries(row).map((_, entry_index) => ({ transaction_id: row.refundId!, entry_index }))
        : [],
      test_mode: row.testMode,
    })),
    ...refunds.map((row) => ({
      id: row.refundId!,
      created_at_millis: row.refundIssuedAt!.getTime(),
      effective_at_millis: row.refundIssuedAt!.getTime(),
      type: null,
      entries: refundEntries(row),
      adjusted_by: [],
      test_mode: false,
    })),
    ...changes.map((row) => ({
      id: row.id,
      created_at_millis: row.createdAt.getTime(),
      effective_at_millis: row.createdAt.getTime(),
      type: "manual-item-quantity-change" as const,
      entries: [
        {
          type: "item_quantity_change",
          customer_type: row.customerType,
          customer_id: row.customerId,
          item_id: row.itemId,
          quantity: row.quantity,
          description: row.description,
          expires_at_millis: row.expiresAt?.getTime() ?? null,
          ...noAdjustment,
        },
      ],
      adjusted_by: [],
      test_mode: false,
    })),
  ].sort((a, b) => b.created_at_millis - a.created_at_millis || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));

  const page = transactions.slice(0, query.limit);
  const last = page[page.length - 1];
  const next_cursor =
    transactions.length > query.limit && last
      ? encodeCursor({ createdAtMillis: last.created_at_millis, txnId: last.id })
      : null;
  return { transactions: page, next_cursor };
}
