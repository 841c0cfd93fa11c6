import { isKnownError } from "@gatehouse/js";
import { Button, buttonClass, formatDate } from "@gatehouse/react/ui";
import { useMemo, useState } from "react";
import { useProjectContext } from "../../project-context.tsx";
import { AsyncCard } from "../../ui/async.tsx";
import { Badge, Card, CopyField, Field, Table } from "../../ui/components.tsx";
import { Select, TextField } from "../../ui/fields.tsx";
import { errorMessage, useAsync } from "../../ui/hooks.ts";
import { ConfirmButton } from "../../ui/modal.tsx";
import { useToast } from "../../ui/toast.tsx";
import { type Customer, type PaymentsConfig, paymentsApi, priceWords } from "./payments-api.ts";

export function ProductsCard(props: { customer: Customer; config: PaymentsConfig; onChanged: () => void }) {
  const { customer, config, onChanged } = props;
  const { app } = useProjectContext();
  const api = useMemo(() => paymentsApi(app), [app]);
  const toast = useToast();
  const held = useAsync(() => api.listProducts(customer), [api, customer.type, customer.id]);
  const products = Object.entries(config.products).filter(
    ([, product]) => product.customerType === customer.type,
  );
  const [productId, setProductId] = useState(products[0]?.[0] ?? "");
  const [quantity, setQuantity] = useState("1");
  const [busy, setBusy] = useState(false);
  const stackable = config.products[productId]?.stackable === true;
  const quantityOk = /^[0-9]+$/.test(quantity.trim()) && Number(quantity) >= 1;

  const grant = async () => {
    setBusy(true);
    try {
      await api.grantProduct(customer, productId, stackable ? Number(quantity) : 1);
      await held.reload();
      onChanged();
      toast.success(`Granted ${config.products[productId]?.displayName ?? productId}`);
    } catch (error) {
      toast.error(error);
    } finally {
      setBusy(false);
    }
  };

  return (
    <AsyncCard
      flush
      title="Products"
      description="What the customer holds now: bought, granted by hand, or from test purchases."
      state={held}
      rows={2}
      testId="payments-customer-products"
      empty={<p className="card-body muted">Holds no products.</p>}
      after={
        products.length > 0 ? (
          <form
            className="card-body payments-adjust"
            onSubmit={(event) => {
              event.preventDefault();
              if (productId && quantityOk && !busy) void grant();
            }}
          >
            <div className="row payments-adjust-row">
              <Field label="Grant a product">
                <Select name="grantProduct" value={productId} onChange={setProductId}>
                  {products.map(([id, product]) => (
                    <option key={id} value={id}>
                      {product.displayName}
                    </option>
                  ))}
                </Select>
              </Field>
              {stackable ? (
                <TextField
                  label="Quantity"
                  type="number"
                  min={1}
                  name="grantQuantity"
                  className="payments-count"
                  value={quantity}
                  onChange={setQuantity}
                />
              ) : null}
              <Button type="submit" loading={busy} disabled={!productId || !quantityOk}>
                Grant product
              </Button>
            </div>
            <p className="small muted">Without payment; its included items come with it.</p>
          </form>
        ) : null
      }
    >
      {(list) => (
        <Table testId="payments-customer-products-table">
          <thead>
            <tr>
              <th>Product</th>
              <th>Quantity</th>
              <th>Kind</th>
              <th>Renews or ends</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {list.map((entry) => {
              const subscription = entry.subscription;
              const name = entry.displayName;
              return (
                <tr key={entry.id ?? subscription?.subscriptionId ?? name} data-product-id={entry.id ?? ""}>
                  <td>
                    <strong>{name}</strong>
                    <div className="small mono muted">{entry.id ?? "inline product"}</div>
                  </td>
                  <td>{entry.quantity}</td>
                  <td>
                    {subscription ? <Badge tone="accent">Subscription</Badge> : <Badge>One-time</Badge>}
                  </td>
                  <td className="small" data-testid="product-period">
                    {subscription?.currentPeriodEnd
                      ? `${subscription.cancelAtPeriodEnd ? "Ends" : "Renews"} ${formatDate(subscription.currentPeriodEnd)}`
                      : subscription
                        ? "—"
                        : "Never ends"}
                  </td>
                  <td className="payments-actions">
                    {entry.id && subscription?.isCancelable ? (
                      <ConfirmButton
                        small
                        label="Cancel subscription"
                        title={`Cancel ${name}?`}
                        description="It stays until the end of the current period, then ends along with the items that expire with it."
                        success="Subscription cancelled"
                        onConfirm={async () => {
                          await api.cancelSubscription(customer, entry.id!, subscription.subscriptionId);
                          await held.reload();
                          onChanged();
                        }}
                      />
                    ) : subscription?.cancelAtPeriodEnd ? (
                      <Badge tone="warning">Cancelled</Badge>
                    ) : null}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </Table>
      )}
    </AsyncCard>
  );
}

export function TestPurchaseCard({ customer, config }: { customer: Customer; config: PaymentsConfig }) {
  const { app } = useProjectContext();
  const api = useMemo(() => paymentsApi(app), [app]);
  const sellable = Object.entries(config.products).filter(
    ([, product]) =>
      product.customerType === customer.type &&
      product.prices !== "include-by-default" &&
      Object.keys(product.prices).length > 0,
  );
  const [productId, setProductId] = useState(sellable[0]?.[0] ?? "");
  const [returnUrl, setReturnUrl] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [url, setUrl] = useState<string | null>(null);

  const create = async () => {
    setBusy(true);
    setError(null);
    setUrl(null);
    try {
      setUrl(await api.createPurchaseUrl(customer, productId, returnUrl.trim() || undefined));
    } catch (caught) {
      setError(
        isKnownError(caught, "PRODUCT_ALREADY_GRANTED")
          ? "The customer already holds this product, and it is not stackable."
          : isKnownError(caught, "REDIRECT_URL_NOT_WHITELISTED")
            ? "The return URL is not on the project's trusted domains (Domains page)."
            : errorMessage(caught),
      );
    } finally {
      setBusy(false);
    }
  };

  return (
    <Card
      title="Test purchase link"
      description="The purchase page as the customer sees it. In test mode, completing it grants the product without a payment."
      testId="payments-test-purchase"
    >
      {sellable.length === 0 ? (
        <p className="muted">No product for {customer.type}s has a price yet.</p>
      ) : (
        <form
          className="stack"
          onSubmit={(event) => {
            event.preventDefault();
            if (productId && !busy) void create();
          }}
        >
          {!config.testMode ? (
            <div className="alert warning">
              Test mode is off: without a payment provider, purchase links cannot be created.
            </div>
          ) : null}
          <div className="row payments-adjust-row">
            <Field label="Product">
              <Select name="purchaseProduct" value={productId} onChange={setProductId}>
                {sellable.map(([id, product]) => {
                  const prices = product.prices === "include-by-default" ? [] : Object.values(product.prices);
                  return (
                    <option key={id} value={id}>
                      {product.displayName} ({prices.map((price) => priceWords(price)).join("; ")})
                    </option>
                  );
                })}
              </Select>
            </Field>
            <TextField
              label="Return URL (optional)"
              type="url"
              name="purchaseReturnUrl"
              placeholder="https://your-app.example/billing"
              value={returnUrl}
              onChange={setReturnUrl}
            />
            <Button type="submit" loading={busy} disabled={!productId}>
              Create test purchase link
            </Button>
          </div>
          <p className="small muted">
            The return URL is where the page sends the customer after buying; it must be on the project's
            trusted domains (or localhost, if allowed).
          </p>
          {error ? (
            <div className="alert danger" role="alert" data-testid="payments-purchase-link-error">
              {error}
            </div>
          ) : null}
          {url ? (
            <div className="stack" data-testid="payments-purchase-link">
              <CopyField value={url} label="purchase-link" />
              <div className="row">
                <a className={buttonClass({ small: true })} href={url} target="_blank" rel="noreferrer">
                  Open purchase page
                </a>
                <span className="small muted">Works once, for 24 hours.</span>
              </div>
            </div>
          ) : null}
        </form>
      )}
    </Card>
  );
}
