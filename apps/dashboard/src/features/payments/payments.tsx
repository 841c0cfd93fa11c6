import { useState } from "react";
import { projectPath, useProjectContext } from "../../project-context.tsx";
import { Link, useLocation } from "../../router.tsx";
import { AsyncBody } from "../../ui/async.tsx";
import { Badge, Button, Card, ConfirmButton, Empty, PageHead, Table, Toggle } from "../../ui/components.tsx";
import { useAsync } from "../../ui/hooks.ts";
import { Icon } from "../../ui/icons.tsx";
import { useToast } from "../../ui/toast.tsx";
import {
  CUSTOMER_TYPE_LABELS,
  intervalWords,
  type PaymentsConfig,
  type PaymentsState,
  type Product,
  priceWords,
  readPayments,
} from "./payments-api.ts";
import { PaymentsCustomersPage } from "./payments-customers.tsx";
import { ItemFormModal, ProductLineFormModal } from "./payments-forms.tsx";
import { PaymentsTransactionsPage } from "./payments-transactions.tsx";
import { ProductFormModal } from "./product-form.tsx";
import "./payments.css";
import { usePageTitle } from "../../ui/page-title.ts";

const TABS = [
  { id: "", label: "Catalogue" },
  { id: "customers", label: "Customers" },
  { id: "transactions", label: "Transactions" },
] as const;

/**
 * Payments (PROTOCOL-EXTRA §2): the catalogue the project sells (`payments` in its config: items, product lines,
 * products with prices and included items, test mode, blocking new purchases), its customers' items and products,
 * and the transactions. `/projects/<id>/payments[/customers|/transactions]`.
 */
export function PaymentsSection({ tab }: { tab: string | undefined }) {
  const { project } = useProjectContext();
  const { search } = useLocation();
  const state = useAsync(async () => readPayments(await project.getConfig()), [project]);
  const payments: PaymentsState = {
    state,
    save: async (override) => {
      await project.updateConfig(override);
      await state.reload();
    },
  };
  const current = TABS.find((candidate) => candidate.id === (tab ?? "")) ?? TABS[0];
  usePageTitle(current.id ? `Payments: ${current.label}` : "Payments");
  return (
    <>
      <PageHead
        title="Payments"
        description="What your app sells, who holds what, and every purchase and item change."
        actions={
          state.data ? (
            state.data.testMode ? (
              <Badge tone="warning">Test mode</Badge>
            ) : (
              <Badge tone="success">Live</Badge>
            )
          ) : null
        }
      />
      <nav className="tabs" aria-label="Payments">
        {TABS.map((candidate) => (
          <Link
            key={candidate.id}
            to={projectPath(project.id, candidate.id ? `payments/${candidate.id}` : "payments")}
            className={`tab${candidate.id === current.id ? " active" : ""}`}
          >
            {candidate.label}
          </Link>
        ))}
      </nav>
      {current.id === "customers" ? (
        <PaymentsCustomersPage payments={payments} />
      ) : current.id === "transactions" ? (
        // A new customer filter in the address (a customer's "Transactions" link) starts over.
        <PaymentsTransactionsPage key={search.toString()} items={state.data?.items ?? {}} />
      ) : (
        <CataloguePage payments={payments} />
      )}
    </>
  );
}

type Editing =
  | { kind: "product"; id: string | null }
  | { kind: "item"; id: string | null }
  | { kind: "line"; id: string | null };

function CataloguePage({ payments }: { payments: PaymentsState }) {
  const { state } = payments;
  const [editing, setEditing] = useState<Editing | null>(null);
  return (
    <>
      <SettingsCard payments={payments} />
      <StripeCard />
      <AsyncBody state={state} rows={6}>
        {(config) => (
          <>
            <ProductsCard config={config} payments={payments} edit={setEditing} />
            <div className="grid2">
              <ItemsCard config={config} payments={payments} edit={setEditing} />
              <ProductLinesCard config={config} payments={payments} edit={setEditing} />
            </div>
            {editing?.kind === "product" ? (
              <ProductFormModal
                config={config}
                productId={editing.id}
                save={payments.save}
                onClose={() => setEditing(null)}
              />
            ) : null}
            {editing?.kind === "item" ? (
              <ItemFormModal
                config={config}
                itemId={editing.id}
                save={payments.save}
                onClose={() => setEditing(null)}
              />
            ) : null}
            {editing?.kind === "line" ? (
              <ProductLineFormModal
                config={config}
                lineId={editing.id}
                save={payments.save}
                onClose={() => setEditing(null)}
              />
            ) : null}
          </>
        )}
      </AsyncBody>
    </>
  );
}

function SettingsCard({ payments }: { payments: PaymentsState }) {
  const toast = useToast();
  const config = payments.state.data;
  const set = async (key: "testMode" | "blockNewPurchases", value: boolean, success: string) => {
    try {
      await payments.save({ [`payments.${key}`]: value });
      toast.success(success);
    } catch (error) {
      toast.error(error);
    }
  };
  return (
    <Card title="Selling" testId="payments-settings">
      <Toggle
        name="testMode"
        label="Test mode"
        description="Purchases complete without a payment provider and without charging anyone; they are marked as test purchases."
        checked={config?.testMode ?? true}
        disabled={!config}
        onChange={(value) => set("testMode", value, value ? "Test mode on" : "Test mode off")}
      />
      <Toggle
        name="blockNewPurchases"
        label="Block new purchases"
        description="Nobody can buy anything: purchase links and test purchases are refused. What customers hold stays."
        checked={config?.blockNewPurchases ?? false}
        disabled={!config}
        onChange={(value) =>
          set("blockNewPurchases", value, value ? "New purchases blocked" : "New purchases allowed")
        }
      />
      {config && !config.testMode ? (
        <div className="alert warning" data-testid="payments-live-warning">
          Test mode is off: purchase links work only once a Stripe account is connected (below), and the
          purchase page takes cards through Stripe Checkout. Granting products and items by hand always works.
        </div>
      ) : null}
    </Card>
  );
}

/**
 * The project's Stripe account: connect it (Stripe's onboarding, which comes back here) and see whether it can take
 * payments. A server without Stripe keys says so instead of offering a button that cannot work.
 */
function StripeCard() {
  const { app } = useProjectContext();
  const toast = useToast();
  const account = useAsync(() => app.getStripeAccountInfo(), [app]);
  const [connecting, setConnecting] = useState(false);
  const connect = async () => {
    setConnecting(true);
    try {
      const { url } = await app.setupPayments();
      window.location.assign(url);
    } catch (error) {
      toast.error(error);
      setConnecting(false);
    }
  };
  const info = account.data;
  return (
    <Card
      title="Stripe"
      testId="payments-stripe"
      actions={
        <Button onClick={connect} loading={connecting} {...(info ? {} : { variant: "primary" as const })}>
          {info
            ? info.detailsSubmitted
              ? "Open Stripe onboarding again"
              : "Finish Stripe onboarding"
            : "Connect Stripe"}
        </Button>
      }
    >
      <AsyncBody state={account} rows={1}>
        {(found) =>
          found ? (
            <p data-testid="payments-stripe-status">
              Account <code>{found.accountId}</code>:{" "}
              {found.chargesEnabled ? (
                <Badge tone="success">Can take payments</Badge>
              ) : (
                <Badge tone="warning">Cannot take payments yet</Badge>
              )}{" "}
              {found.payoutsEnabled ? <Badge tone="success">Payouts on</Badge> : <Badge>Payouts off</Badge>}
            </p>
          ) : (
            <p className="muted" data-testid="payments-stripe-status">
              No Stripe account is connected. Connect one to sell outside test mode; customers then pay on
              Stripe Checkout and Stripe's webhook grants what they bought.
            </p>
          )
        }
      </AsyncBody>
    </Card>
  );
}

type CardProps = {
  config: PaymentsConfig;
  payments: PaymentsState;
  edit: (editing: Editing) => void;
};

function productPrices(product: Product) {
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

function includedItemsList(product: Product, config: PaymentsConfig) {
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

function ProductsCard({ config, payments, edit }: CardProps) {
  const products = Object.entries(config.products);
  const add = (
    <Button variant="primary" size="sm" onClick={() => edit({ kind: "product", id: null })}>
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
                    size="sm"
                    aria-label={`Edit ${product.displayName}`}
                    onClick={() => edit({ kind: "product", id })}
                  >
                    Edit
                  </Button>{" "}
                  <ConfirmButton
                    size="sm"
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

function ItemsCard({ config, payments, edit }: CardProps) {
  const items = Object.entries(config.items);
  const add = (
    <Button size="sm" onClick={() => edit({ kind: "item", id: null })}>
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
                    size="sm"
                    aria-label={`Edit ${item.displayName}`}
                    onClick={() => edit({ kind: "item", id })}
                  >
                    Edit
                  </Button>{" "}
                  <ConfirmButton
                    size="sm"
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

function ProductLinesCard({ config, payments, edit }: CardProps) {
  const lines = Object.entries(config.productLines);
  const add = (
    <Button size="sm" onClick={() => edit({ kind: "line", id: null })}>
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
                    size="sm"
                    aria-label={`Edit ${line.displayName ?? id}`}
                    onClick={() => edit({ kind: "line", id })}
                  >
                    Edit
                  </Button>{" "}
                  <ConfirmButton
                    size="sm"
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
