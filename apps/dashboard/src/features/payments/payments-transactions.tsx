import type {
  GatehouseAdminApp as AdminApp,
  InlineProduct,
  Transaction,
  TransactionEntry,
  TransactionType,
} from "@gatehouse/js";
import { amountsLine, buttonClass, formatDate, Pager, useCursorPages } from "@gatehouse/react/ui";
import { useMemo, useState } from "react";
import { projectPath, useProjectContext } from "../../project-context.tsx";
import { Link, useLocation } from "../../router.tsx";
import { AsyncCard } from "../../ui/async.tsx";
import { Badge, Empty, Table } from "../../ui/components.tsx";
import { Select } from "../../ui/fields.tsx";
import { useAsync } from "../../ui/hooks.ts";
import { Icon } from "../../ui/icons.tsx";
import {
  CUSTOMER_TYPE_LABELS,
  CUSTOMER_TYPES,
  type CustomerType,
  type Item,
  intervalWords,
  paymentsApi,
  TRANSACTION_TYPES,
} from "./payments-api.ts";

const PAGE_SIZE = 20;

const TYPE_LABELS: Record<TransactionType, string> = {
  purchase: "Purchase",
  "subscription-cancellation": "Subscription cancellation",
  "subscription-renewal": "Subscription renewal",
  "manual-item-quantity-change": "Item change by hand",
  chargeback: "Chargeback",
  "product-change": "Product change",
};

/**
 * `GET /internal/payments/transactions`: purchases and item changes, newest first, a page at a time, filtered by
 * type and customer type (and one customer, when opened from a customer's page).
 */
export function PaymentsTransactionsPage({ items }: { items: Record<string, Item> }) {
  const { app, project } = useProjectContext();
  const api = useMemo(() => paymentsApi(app), [app]);
  const { search } = useLocation();
  const urlCustomerType = search.get("customer_type");
  const customerId = search.get("customer_id") ?? undefined;
  const [type, setType] = useState<TransactionType | "">("");
  const [customerType, setCustomerType] = useState<CustomerType | "">(
    (CUSTOMER_TYPES as readonly string[]).includes(urlCustomerType ?? "")
      ? (urlCustomerType as CustomerType)
      : "",
  );
  const pages = useCursorPages();
  const { cursor } = pages;
  const page = useAsync(
    () =>
      api.listTransactions({
        limit: PAGE_SIZE,
        ...(cursor ? { cursor } : {}),
        ...(type ? { type } : {}),
        ...(customerType ? { customerType } : {}),
        ...(customerId ? { customerId } : {}),
      }),
    [api, cursor, type, customerType, customerId],
  );
  const names = useAsync(() => customerNames(app, page.data?.transactions ?? []), [app, page.data]);
  const filter =
    <T,>(set: (value: T) => void) =>
    (value: T) => {
      set(value);
      pages.reset();
    };
  const base = projectPath(project.id, "payments/transactions");

  return (
    <AsyncCard
      flush
      title="Transactions"
      description="Purchases (test ones marked) and changes of item quantities by hand, newest first."
      state={page}
      rows={6}
      testId="payments-transactions"
      toolbar={
        <div className="row" style={{ flex: 1 }}>
          <Select
            name="transactionType"
            aria-label="Transaction type"
            value={type}
            onChange={filter(setType)}
            style={{ maxWidth: 260 }}
            placeholder="All types"
            options={TRANSACTION_TYPES.map((choice) => [choice, TYPE_LABELS[choice]] as const)}
          />
          <Select
            name="transactionCustomerType"
            aria-label="Customer type"
            value={customerType}
            onChange={filter(setCustomerType)}
            style={{ maxWidth: 200 }}
            placeholder="All customers"
            options={CUSTOMER_TYPES.map((choice) => [choice, `${CUSTOMER_TYPE_LABELS[choice]}s`] as const)}
          />
          {customerId ? (
            <span className="row payments-nowrap" data-testid="transactions-customer-filter">
              <Badge tone="accent">
                Customer <span className="mono">{customerId}</span>
              </Badge>
              <Link
                to={customerType ? `${base}?customer_type=${customerType}` : base}
                className={buttonClass({ variant: "ghost", small: true })}
              >
                <Icon name="x" /> All customers
              </Link>
            </span>
          ) : null}
        </div>
      }
      empty={
        <Empty icon={<Icon name="card" size={22} />} title="No transactions">
          {type || customerType || customerId
            ? "Nothing matches these filters."
            : "Purchases and item changes appear here as they happen."}
        </Empty>
      }
      isEmpty={(data) => data.transactions.length === 0}
      footer={
        <Pager page={pages.page} onPrevious={pages.previous} onNext={pages.next(page.data?.nextCursor)} />
      }
    >
      {(data) => (
        <Table testId="payments-transactions-table">
          <thead>
            <tr>
              <th>When</th>
              <th>Type</th>
              <th>Customer</th>
              <th>What</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {data.transactions.map((transaction) => (
              <TransactionRow
                key={transaction.id}
                transaction={transaction}
                items={items}
                names={names.data}
              />
            ))}
          </tbody>
        </Table>
      )}
    </AsyncCard>
  );
}

type CustomerNames = ReadonlyMap<string, string>;
const customerKey = (type: string, id: string) => `${type}:${id}`;

/**
 * The page's users and teams by name (a user's display name, else their email; a team's name), each looked up
 * once. A custom customer's id is the owner's own name for it, so it stays as it is.
 */
async function customerNames(app: AdminApp, transactions: readonly Transaction[]): Promise<CustomerNames> {
  const wanted = new Map<string, { type: string; id: string }>();
  for (const transaction of transactions) {
    const entry = transaction.entries[0];
    if (entry?.customer_id && (entry.customer_type === "user" || entry.customer_type === "team")) {
      wanted.set(customerKey(entry.customer_type, entry.customer_id), {
        type: entry.customer_type,
        id: entry.customer_id,
      });
    }
  }
  const found = await Promise.all(
    [...wanted].map(async ([key, { type, id }]): Promise<[string, string | null]> => {
      try {
        if (type === "user") {
          const user = await app.getUser(id);
          return [key, user ? (user.displayName ?? user.primaryEmail) : null];
        }
        return [key, (await app.getTeam(id))?.displayName ?? null];
      } catch {
        return [key, null]; // deleted since, or unreadable: the id stays
      }
    }),
  );
  return new Map(found.filter((pair): pair is [string, string] => pair[1] !== null));
}

function TransactionRow(props: {
  transaction: Transaction;
  items: Record<string, Item>;
  names: CustomerNames | undefined;
}) {
  const { transaction, items, names } = props;
  const { project } = useProjectContext();
  const entry = transaction.entries[0];
  const customerLink =
    entry?.customer_type && entry.customer_id
      ? `${projectPath(project.id, "payments/customers")}?type=${entry.customer_type}&id=${encodeURIComponent(entry.customer_id)}`
      : null;
  return (
    <tr data-transaction-id={transaction.id} data-type={transaction.type ?? ""}>
      <td className="small">{formatDate(new Date(transaction.created_at_millis))}</td>
      <td>{transaction.type ? TYPE_LABELS[transaction.type] : "Other"}</td>
      <td data-testid="transaction-customer">
        {customerLink && entry?.customer_type ? (
          <Link to={customerLink}>
            <span className="muted">{CUSTOMER_TYPE_LABELS[entry.customer_type]}</span>{" "}
            {names?.get(customerKey(entry.customer_type, entry.customer_id!)) ?? (
              <span className="mono small">{entry.customer_id}</span>
            )}
          </Link>
        ) : (
          "—"
        )}
      </td>
      <td data-testid="transaction-what">
        {transaction.entries.map((one, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: entries are addressed by index in the protocol
          <div key={index}>{entryWords(one, items)}</div>
        ))}
      </td>
      <td>{transaction.test_mode ? <Badge tone="warning">Test</Badge> : null}</td>
    </tr>
  );
}

const textOf = (value: unknown) => (typeof value === "string" ? value : null);
const numberOf = (value: unknown) => (typeof value === "number" ? value : null);

/** One entry in words; items by their catalogue name while they are in it. */
function entryWords(entry: TransactionEntry, items: Record<string, Item>): string {
  // The SDK types only the fields every entry has; the rest depend on `type` (PROTOCOL-EXTRA §2.5).
  const itemId = textOf(entry.item_id);
  const description = textOf(entry.description);
  if (entry.type === "item_quantity_change") {
    const quantity = numberOf(entry.quantity) ?? 0;
    const item = itemId ? (items[itemId]?.displayName ?? itemId) : "item";
    const words = `${quantity > 0 ? "+" : ""}${quantity} ${item}`;
    const expiresAt = numberOf(entry.expires_at_millis);
    const expires = expiresAt ? `, until ${formatDate(new Date(expiresAt))}` : "";
    return `${words}${description ? ` — ${description}` : ""}${expires}`;
  }
  if (entry.type === "product_grant") {
    const product = typeof entry.product === "object" ? (entry.product as InlineProduct | null) : null;
    const priceId = textOf(entry.price_id);
    const name = product?.display_name ?? textOf(entry.product_id) ?? "inline product";
    const price = priceId ? product?.prices?.[priceId] : undefined;
    const amount = price
      ? ` at ${amountsLine(price)} ${intervalWords(price.interval)}`
      : entry.price_id === null
        ? " (granted without payment)"
        : "";
    return `${numberOf(entry.quantity) ?? 1} × ${name}${amount}`;
  }
  if (entry.type === "money_transfer") return "Payment";
  return entry.type.replace(/_/g, " ");
}
