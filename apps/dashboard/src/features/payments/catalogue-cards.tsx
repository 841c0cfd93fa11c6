import { Button } from "@gatehouse/react/ui";
import type { ReactNode } from "react";
import { Badge, Card, Empty, Table } from "../../ui/components.tsx";
import { Icon } from "../../ui/icons.tsx";
import { ConfirmButton } from "../../ui/modal.tsx";
import {
  CUSTOMER_TYPE_LABELS,
  intervalWords,
  type PaymentsConfig,
  type PaymentsState,
  type Product,
  priceWords,
} from "./payments-api.ts";
import "./payments.css";

/** Which catalogue form is open. */
export type Editing =
  | { kind: "product"; id: string | null }
  | { kind: "item"; id: string | null }
  | { kind: "line"; id: string | null };

export type CardProps = {
  config: PaymentsConfig;
  payments: PaymentsState;
  edit: (editing: Editing) => void;
};

export function productPrices(product: Product) {
  if (product.prices === "include-by-default") {
    return <span className="muted small">Included by default (free)</span>;
  }
  const entries = Object.entries(product.prices);
  if (entries.length === 0) return <span className="muted small">No prices</span>;
  return (
    <ul className="payments-list">
      {entries.map(([id, price]) => (
        <li key={id}>
          {priceWords(price)} <span className="mono muted">{id}</span>
          {price.serverOnly ? <Badge>server only</Badge> : null}
        </li>
      ))}
    </ul>
  );
}

export function includedItemsList(product: Product, config: PaymentsConfig) {
  const entries = Object.entries(product.includedItems);
  if (entries.length === 0) return <span className="muted small">—</span>;
  return (
    <ul className="payments-list">
      {entries.map(([id, included]) => (
        <li key={id}>
          {included.quantity} × {config.items[id]?.displayName ?? id}
          {included.repeat !== "never" ? (
            <span className="muted"> {intervalWords(included.repeat)}</span>
          ) : null}
        </li>
      ))}
    </ul>
  );
}

/** One kind of catalogue entry: where its config lives and the words of its card. */
type EntryKind<T> = {
  kind: Editing["kind"];
  /** The config key its entries live under (`payments.<configKey>.<id>`). */
  configKey: "products" | "items" | "productLines";
  title: string;
  /** The header of the name column. */
  nameHeader: string;
  description: string;
  testId: string;
  /** The attribute each row carries with its id (data-product-id, …). */
  rowIdAttribute: string;
  newLabel: string;
  newVariant?: "primary" | "secondary";
  empty: { title: string; text: string; icon?: ReactNode };
  /** The columns after the name, with their header. */
  columns: Array<{ header: string; cell: (id: string, entry: T) => ReactNode; className?: string }>;
  nameOf: (id: string, entry: T) => string;
  /** Under the name: the entry's flags. */
  flags?: (entry: T) => ReactNode;
  deleteWords: { description: string; confirmLabel: string; success: string };
};

/** A catalogue card: its entries in a table, each with Edit and Delete (a config write of null), and New. */
function CatalogueCard<T extends { customerType: keyof typeof CUSTOMER_TYPE_LABELS }>(
  props: CardProps & { entries: Record<string, T>; entryKind: EntryKind<T> },
) {
  const { entryKind: kind, edit } = props;
  const entries = Object.entries(props.entries);
  const add = (
    <Button
      variant={kind.newVariant ?? "secondary"}
      small
      onClick={() => edit({ kind: kind.kind, id: null })}
    >
      <Icon name="plus" /> {kind.newLabel}
    </Button>
  );
  return (
    <Card flush title={kind.title} description={kind.description} actions={add} testId={kind.testId}>
      {entries.length === 0 ? (
        <Empty icon={kind.empty.icon} title={kind.empty.title} action={add}>
          {kind.empty.text}
        </Empty>
      ) : (
        <Table testId={`${kind.testId}-table`}>
          <thead>
            <tr>
              <th>{kind.nameHeader}</th>
              <th>Customer</th>
              {kind.columns.map((column) => (
                <th key={column.header}>{column.header}</th>
              ))}
              <th />
            </tr>
          </thead>
          <tbody>
            {entries.map(([id, entry]) => {
              const name = kind.nameOf(id, entry);
              return (
                <tr key={id} {...{ [kind.rowIdAttribute]: id }}>
                  <td>
                    <strong>{name}</strong>
                    <div className="small mono muted">{id}</div>
                    {kind.flags?.(entry)}
                  </td>
                  <td>{CUSTOMER_TYPE_LABELS[entry.customerType]}</td>
                  {kind.columns.map((column) => (
                    <td key={column.header} className={column.className}>
                      {column.cell(id, entry)}
                    </td>
                  ))}
                  <td className="payments-actions">
                    <Button
                      variant="secondary"
                      small
                      aria-label={`Edit ${name}`}
                      onClick={() => edit({ kind: kind.kind, id })}
                    >
                      Edit
                    </Button>{" "}
                    <ConfirmButton
                      small
                      label="Delete"
                      title={`Delete ${name}?`}
                      description={kind.deleteWords.description}
                      confirmLabel={kind.deleteWords.confirmLabel}
                      success={kind.deleteWords.success}
                      onConfirm={() => props.payments.save({ [`payments.${kind.configKey}.${id}`]: null })}
                    />
                  </td>
                </tr>
              );
            })}
          </tbody>
        </Table>
      )}
    </Card>
  );
}

/** The display names of the products that `keep`, or a dash. */
function productNames(config: PaymentsConfig, keep: (product: Product) => boolean): string {
  return (
    Object.values(config.products)
      .filter(keep)
      .map((product) => product.displayName)
      .join(", ") || "—"
  );
}

export function ProductsCard(props: CardProps) {
  const { config } = props;
  return (
    <CatalogueCard
      {...props}
      entries={config.products}
      entryKind={{
        kind: "product",
        configKey: "products",
        title: "Products",
        nameHeader: "Product",
        description:
          "What customers buy: prices in one or more currencies, one-time or recurring, and the items each grants.",
        testId: "payments-products",
        rowIdAttribute: "data-product-id",
        newLabel: "New product",
        newVariant: "primary",
        empty: {
          title: "No products yet",
          text: "A product has prices and grants items, e.g. a Pro plan at $29 a month with 1,000 credits.",
          icon: <Icon name="card" size={22} />,
        },
        columns: [
          { header: "Prices", cell: (_, product) => productPrices(product) },
          { header: "Includes", cell: (_, product) => includedItemsList(product, config) },
        ],
        nameOf: (_, product) => product.displayName,
        flags: (product) => (
          <div className="row payments-flags">
            {product.productLineId ? (
              <Badge tone="accent">
                {config.productLines[product.productLineId]?.displayName ?? product.productLineId}
              </Badge>
            ) : null}
            {product.stackable ? <Badge>stackable</Badge> : null}
            {product.serverOnly ? <Badge>server only</Badge> : null}
            {product.isAddOnTo ? <Badge>add-on</Badge> : null}
          </div>
        ),
        deleteWords: {
          description:
            "It can no longer be bought or granted. Customers who hold it keep it, as it was when they got it.",
          confirmLabel: "Delete product",
          success: "Product deleted",
        },
      }}
    />
  );
}

export function ItemsCard(props: CardProps) {
  const { config } = props;
  return (
    <CatalogueCard
      {...props}
      entries={config.items}
      entryKind={{
        kind: "item",
        configKey: "items",
        title: "Items",
        nameHeader: "Item",
        description: "What customers have a quantity of: credits, seats, API calls.",
        testId: "payments-items",
        rowIdAttribute: "data-item-id",
        newLabel: "New item",
        empty: { title: "No items yet", text: "Products grant items; your server reads and spends them." },
        columns: [
          {
            header: "In products",
            className: "small",
            cell: (id) => productNames(config, (product) => Object.hasOwn(product.includedItems, id)),
          },
        ],
        nameOf: (_, item) => item.displayName,
        deleteWords: {
          description:
            "Products that include it must drop it first. Quantities customers hold are no longer readable.",
          confirmLabel: "Delete item",
          success: "Item deleted",
        },
      }}
    />
  );
}

export function ProductLinesCard(props: CardProps) {
  const { config } = props;
  return (
    <CatalogueCard
      {...props}
      entries={config.productLines}
      entryKind={{
        kind: "line",
        configKey: "productLines",
        title: "Product lines",
        nameHeader: "Line",
        description: "A customer holds one product of a line at a time: buying another replaces it (plans).",
        testId: "payments-lines",
        rowIdAttribute: "data-line-id",
        newLabel: "New product line",
        empty: {
          title: "No product lines yet",
          text: "Put plans like Free, Pro and Enterprise in one line so customers switch between them.",
        },
        columns: [
          {
            header: "Products",
            className: "small",
            cell: (id) => productNames(config, (product) => product.productLineId === id),
          },
        ],
        nameOf: (id, line) => line.displayName ?? id,
        deleteWords: {
          description: "Products in it must leave it first.",
          confirmLabel: "Delete line",
          success: "Product line deleted",
        },
      }}
    />
  );
}
