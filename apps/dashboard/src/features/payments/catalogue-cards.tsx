import { Button } from "@gatehouse/react/ui";
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

export function ProductsCard({ config, payments, edit }: CardProps) {
  const products = Object.entries(config.products);
  const add = (
    <Button small onClick={() => edit({ kind: "product", id: null })}>
      <Icon name="plus" /> New product
    </Button>
  );
  return (
    <Card
      flush
      title="Products"
      description="What customers buy: prices in one or more currencies, one-time or recurring, and the items each grants."
      actions={add}
      testId="payments-products"
    >
      {products.length === 0 ? (
        <Empty icon={<Icon name="card" size={22} />} title="No products yet" action={add}>
          A product has prices and grants items, e.g. a Pro plan at $29 a month with 1,000 credits.
        </Empty>
      ) : (
        <Table testId="payments-products-table">
          <thead>
            <tr>
              <th>Product</th>
              <th>Customer</th>
              <th>Prices</th>
              <th>Includes</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {products.map(([id, product]) => (
              <tr key={id} data-product-id={id}>
                <td>
                  <strong>{product.displayName}</strong>
                  <div className="small mono muted">{id}</div>
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
                </td>
                <td>{CUSTOMER_TYPE_LABELS[product.customerType]}</td>
                <td>{productPrices(product)}</td>
                <td>{includedItemsList(product, config)}</td>
                <td className="payments-actions">
                  <Button
                    variant="secondary"
                    small
                    aria-label={`Edit ${product.displayName}`}
                    onClick={() => edit({ kind: "product", id })}
                  >
                    Edit
                  </Button>{" "}
                  <ConfirmButton
                    small
                    label="Delete"
                    title={`Delete ${product.displayName}?`}
                    description="It can no longer be bought or granted. Customers who hold it keep it, as it was when they got it."
                    confirmLabel="Delete product"
                    success="Product deleted"
                    onConfirm={() => payments.save({ [`payments.products.${id}`]: null })}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
    </Card>
  );
}

export function ItemsCard({ config, payments, edit }: CardProps) {
  const items = Object.entries(config.items);
  const add = (
    <Button variant="secondary" small onClick={() => edit({ kind: "item", id: null })}>
      <Icon name="plus" /> New item
    </Button>
  );
  const usedBy = (itemId: string) =>
    Object.values(config.products).filter((product) => Object.hasOwn(product.includedItems, itemId));
  return (
    <Card
      flush
      title="Items"
      description="What customers have a quantity of: credits, seats, API calls."
      actions={add}
      testId="payments-items"
    >
      {items.length === 0 ? (
        <Empty title="No items yet" action={add}>
          Products grant items; your server reads and spends them.
        </Empty>
      ) : (
        <Table testId="payments-items-table">
          <thead>
            <tr>
              <th>Item</th>
              <th>Customer</th>
              <th>In products</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {items.map(([id, item]) => (
              <tr key={id} data-item-id={id}>
                <td>
                  <strong>{item.displayName}</strong>
                  <div className="small mono muted">{id}</div>
                </td>
                <td>{CUSTOMER_TYPE_LABELS[item.customerType]}</td>
                <td className="small">
                  {usedBy(id)
                    .map((product) => product.displayName)
                    .join(", ") || "—"}
                </td>
                <td className="payments-actions">
                  <Button
                    variant="secondary"
                    small
                    aria-label={`Edit ${item.displayName}`}
                    onClick={() => edit({ kind: "item", id })}
                  >
                    Edit
                  </Button>{" "}
                  <ConfirmButton
                    small
                    label="Delete"
                    title={`Delete ${item.displayName}?`}
                    description="Products that include it must drop it first. Quantities customers hold are no longer readable."
                    confirmLabel="Delete item"
                    success="Item deleted"
                    onConfirm={() => payments.save({ [`payments.items.${id}`]: null })}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
    </Card>
  );
}

export function ProductLinesCard({ config, payments, edit }: CardProps) {
  const lines = Object.entries(config.productLines);
  const add = (
    <Button variant="secondary" small onClick={() => edit({ kind: "line", id: null })}>
      <Icon name="plus" /> New product line
    </Button>
  );
  const members = (lineId: string) =>
    Object.values(config.products).filter((product) => product.productLineId === lineId);
  return (
    <Card
      flush
      title="Product lines"
      description="A customer holds one product of a line at a time: buying another replaces it (plans)."
      actions={add}
      testId="payments-lines"
    >
      {lines.length === 0 ? (
        <Empty title="No product lines yet" action={add}>
          Put plans like Free, Pro and Enterprise in one line so customers switch between them.
        </Empty>
      ) : (
        <Table testId="payments-lines-table">
          <thead>
            <tr>
              <th>Line</th>
              <th>Customer</th>
              <th>Products</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {lines.map(([id, line]) => (
              <tr key={id} data-line-id={id}>
                <td>
                  <strong>{line.displayName ?? id}</strong>
                  <div className="small mono muted">{id}</div>
                </td>
                <td>{CUSTOMER_TYPE_LABELS[line.customerType]}</td>
                <td className="small">
                  {members(id)
                    .map((product) => product.displayName)
                    .join(", ") || "—"}
                </td>
                <td className="payments-actions">
                  <Button
                    variant="secondary"
                    small
                    aria-label={`Edit ${line.displayName ?? id}`}
                    onClick={() => edit({ kind: "line", id })}
                  >
                    Edit
                  </Button>{" "}
                  <ConfirmButton
                    small
                    label="Delete"
                    title={`Delete ${line.displayName ?? id}?`}
                    description="Products in it must leave it first."
                    confirmLabel="Delete line"
                    success="Product line deleted"
                    onConfirm={() => payments.save({ [`payments.productLines.${id}`]: null })}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
    </Card>
  );
}
