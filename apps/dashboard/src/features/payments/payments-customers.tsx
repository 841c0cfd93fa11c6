import { isKnownError } from "@gatehouse/js";
import { useMemo, useState } from "react";
import { projectPath, useProjectContext } from "../../project-context.tsx";
import { Link, navigate, useLocation } from "../../router.tsx";
import { AsyncBody, AsyncCard } from "../../ui/async.tsx";
import {
  Avatar,
  Badge,
  Button,
  Card,
  ConfirmButton,
  CopyField,
  Empty,
  Field,
  formatDate,
  Table,
} from "../../ui/components.tsx";
import { errorMessage, useAsync } from "../../ui/hooks.ts";
import { Icon } from "../../ui/icons.tsx";
import { useToast } from "../../ui/toast.tsx";
import { UserPicker } from "../../ui/user-picker.tsx";
import {
  CUSTOMER_TYPE_LABELS,
  CUSTOMER_TYPES,
  type Customer,
  type CustomerType,
  type PaymentsConfig,
  type PaymentsState,
  paymentsApi,
  priceWords,
} from "./payments-api.ts";

/** `?type=user&id=…`: the customer open on the page, so a link (or a transaction's row) can open one. */
function useCustomerInUrl(): [Customer | null, (customer: Customer | null) => void] {
  const { project } = useProjectContext();
  const { search } = useLocation();
  const type = search.get("type");
  const id = search.get("id");
  const customer =
    type && id && (CUSTOMER_TYPES as readonly string[]).includes(type)
      ? { type: type as CustomerType, id }
      : null;
  const set = (next: Customer | null) => {
    const base = projectPath(project.id, "payments/customers");
    navigate(next ? `${base}?type=${next.type}&id=${encodeURIComponent(next.id)}` : base);
  };
  return [customer, set];
}

/**
 * A customer's side of payments: look up a user, team or custom customer; their item quantities with grants and
 * revocations by hand; the products they hold, granting one and cancelling a subscription; and a test purchase
 * link that opens the purchase page as the customer would see it.
 */
export function PaymentsCustomersPage({ payments }: { payments: PaymentsState }) {
  const [customer, setCustomer] = useCustomerInUrl();
  return (
    <>
      <CustomerFinder current={customer} onPick={setCustomer} />
      <AsyncBody state={payments.state} rows={4}>
        {(config) =>
          customer ? (
            <CustomerView key={`${customer.type}/${customer.id}`} customer={customer} config={config} />
          ) : (
            <Card>
              <Empty icon={<Icon name="search" size={22} />} title="Choose a customer">
                Find a user by name or email, pick a team, or type the id your app uses for a custom customer.
              </Empty>
            </Card>
          )
        }
      </AsyncBody>
    </>
  );
}

function CustomerFinder(props: { current: Customer | null; onPick: (customer: Customer) => void }) {
  const { app } = useProjectContext();
  const [type, setType] = useState<CustomerType>(props.current?.type ?? "user");
  const [customId, setCustomId] = useState(props.current?.type === "custom" ? props.current.id : "");
  const teams = useAsync(() => (type === "team" ? app.listTeams() : Promise.resolve([])), [app, type]);
  return (
    <Card title="Find a customer" testId="payments-customer-finder">
      <div className="row payments-finder">
        <select
          name="customerType"
          aria-label="Customer type"
          value={type}
          onChange={(e) => setType(e.target.value as CustomerType)}
          className="payments-type-select"
        >
          {CUSTOMER_TYPES.map((choice) => (
            <option key={choice} value={choice}>
              {CUSTOMER_TYPE_LABELS[choice]}
            </option>
          ))}
        </select>
        <div className="payments-finder-input">
          {type === "user" ? (
            <UserPicker name="customerUser" onPick={(user) => props.onPick({ type: "user", id: user.id })} />
          ) : type === "team" ? (
            <select
              name="customerTeam"
              aria-label="Team"
              value={props.current?.type === "team" ? props.current.id : ""}
              onChange={(e) => e.target.value && props.onPick({ type: "team", id: e.target.value })}
            >
              <option value="">{teams.data ? "Choose a team…" : "Loading teams…"}</option>
              {(teams.data ?? []).map((team) => (
                <option key={team.id} value={team.id}>
                  {team.displayName}
                </option>
              ))}
            </select>
          ) : (
            <form
              className="row payments-nowrap"
              onSubmit={(event) => {
                event.preventDefault();
                if (customId.trim()) props.onPick({ type: "custom", id: customId.trim() });
              }}
            >
              <input
                type="text"
                name="customerId"
                aria-label="Custom customer id"
                placeholder="The id your app uses, e.g. an organisation id"
                value={customId}
                onChange={(e) => setCustomId(e.target.value)}
              />
              <Button type="submit" disabled={!customId.trim()}>
                Open
              </Button>
            </form>
          )}
        </div>
      </div>
    </Card>
  );
}

function CustomerHeading({ customer }: { customer: Customer }) {
  const { app, project } = useProjectContext();
  const who = useAsync(async () => {
    if (customer.type === "user") {
      const user = await app.getUser(customer.id);
      return user
        ? {
            name: user.displayName ?? user.primaryEmail ?? "Anonymous user",
            detail: user.primaryEmail,
            image: user.profileImageUrl,
          }
        : null;
    }
    if (customer.type === "team") {
      const team = await app.getTeam(customer.id);
      return team ? { name: team.displayName, detail: null, image: team.profileImageUrl } : null;
    }
    return { name: customer.id, detail: null, image: null };
  }, [app, customer.type, customer.id]);
  const profile =
    customer.type === "user"
      ? projectPath(project.id, `users/${encodeURIComponent(customer.id)}`)
      : customer.type === "team"
        ? projectPath(project.id, `teams/${encodeURIComponent(customer.id)}`)
        : null;
  return (
    <div className="payments-customer-head" data-testid="payments-customer">
      <Avatar name={who.data?.name ?? customer.id} seed={customer.id} image={who.data?.image} large />
      <div style={{ flex: 1, minWidth: 0 }}>
        <h2>
          {who.data === null ? `Unknown ${customer.type}` : (who.data?.name ?? "…")}{" "}
          <Badge>{CUSTOMER_TYPE_LABELS[customer.type]}</Badge>
        </h2>
        <div className="small muted mono">{customer.id}</div>
        {who.data?.detail && who.data.detail !== who.data.name ? (
          <div className="small muted">{who.data.detail}</div>
        ) : null}
      </div>
      <div className="row">
        {profile ? (
          <Link to={profile} className="btn sm">
            Open {customer.type}
          </Link>
        ) : null}
        <Link
          to={`${projectPath(project.id, "payments/transactions")}?customer_type=${customer.type}&customer_id=${encodeURIComponent(customer.id)}`}
          className="btn sm"
        >
          Transactions
        </Link>
      </div>
    </div>
  );
}

function CustomerView({ customer, config }: { customer: Customer; config: PaymentsConfig }) {
  // Bumped when a product is granted or cancelled: its included items change the quantities too.
  const [version, setVersion] = useState(0);
  return (
    <>
      <Card>
        <CustomerHeading customer={customer} />
      </Card>
      <ItemsCard customer={customer} config={config} version={version} />
      <ProductsCard customer={customer} config={config} onChanged={() => setVersion((v) => v + 1)} />
      <TestPurchaseCard customer={customer} config={config} />
    </>
  );
}

function ItemsCard(props: { customer: Customer; config: PaymentsConfig; version: number }) {
  const { customer, config, version } = props;
  const { app } = useProjectContext();
  const api = useMemo(() => paymentsApi(app), [app]);
  const toast = useToast();
  const items = Object.entries(config.items).filter(([, item]) => item.customerType === customer.type);
  const itemIds = items.map(([id]) => id).join(",");
  const quantities = useAsync(
    async () =>
      Object.fromEntries(
        await Promise.all(items.map(async ([id]) => [id, await api.itemQuantity(customer, id)] as const)),
      ),
    [api, customer.type, customer.id, itemIds, version],
  );
  const [itemId, setItemId] = useState(items[0]?.[0] ?? "");
  const [amount, setAmount] = useState("1");
  const [description, setDescription] = useState("");
  const [allowNegative, setAllowNegative] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const amountOk = /^[0-9]+$/.test(amount.trim()) && Number(amount) >= 1;

  const change = async (sign: 1 | -1) => {
    setBusy(true);
    setError(null);
    try {
      await api.changeItemQuantity(customer, itemId, {
        delta: sign * Number(amount),
        description: description.trim(),
        // Granting never needs it; a revocation only when the owner says the quantity may go below zero.
        allowNegative: sign === 1 || allowNegative,
      });
      await quantities.reload();
      const name = config.items[itemId]?.displayName ?? itemId;
      toast.success(sign === 1 ? `Granted ${amount} ${name}` : `Revoked ${amount} ${name}`);
      setDescription("");
    } catch (caught) {
      setError(
        isKnownError(caught, "ITEM_QUANTITY_INSUFFICIENT_AMOUNT")
          ? `The customer has only ${quantities.data?.[itemId] ?? 0} ${config.items[itemId]?.displayName ?? itemId}. Tick “Allow below zero” to revoke anyway.`
          : errorMessage(caught),
      );
    } finally {
      setBusy(false);
    }
  };

  return (
    <AsyncCard
      flush
      title="Items"
      description={`Quantities this ${customer.type} holds now. A change by hand is recorded as a transaction.`}
      state={quantities}
      rows={2}
      testId="payments-customer-items"
      isEmpty={() => items.length === 0}
      empty={
        <Empty title={`No ${customer.type} items in the catalogue`}>
          Items are for one customer type; create one for {customer.type}s on the Catalogue tab.
        </Empty>
      }
      after={
        items.length > 0 ? (
          <form
            className="card-body payments-adjust"
            onSubmit={(event) => {
              event.preventDefault();
              if (amountOk && itemId && !busy) void change(1);
            }}
          >
            <div className="row payments-adjust-row">
              <Field label="Item">
                <select name="adjustItem" value={itemId} onChange={(e) => setItemId(e.target.value)}>
                  {items.map(([id, item]) => (
                    <option key={id} value={id}>
                      {item.displayName}
                    </option>
                  ))}
                </select>
              </Field>
              <Field label="Quantity">
                <input
                  type="number"
                  min={1}
                  name="adjustAmount"
                  className="payments-count"
                  value={amount}
                  onChange={(e) => setAmount(e.target.value)}
                />
              </Field>
              <Field label="Note (optional)">
                <input
                  type="text"
                  name="adjustDescription"
                  placeholder="Goodwill credit"
                  value={description}
                  onChange={(e) => setDescription(e.target.value)}
                />
              </Field>
            </div>
            <div className="row">
              <label className="checkbox">
                <input
                  type="checkbox"
                  name="adjustAllowNegative"
                  checked={allowNegative}
                  onChange={(e) => setAllowNegative(e.target.checked)}
                />
                Allow below zero when revoking
              </label>
              <span style={{ flex: 1 }} />
              <Button type="submit" variant="primary" loading={busy} disabled={!amountOk || !itemId}>
                <Icon name="plus" /> Grant
              </Button>
              <Button variant="danger" disabled={!amountOk || !itemId || busy} onClick={() => change(-1)}>
                Revoke
              </Button>
            </div>
            {error ? (
              <div className="alert danger" role="alert" data-testid="payments-adjust-error">
                {error}
              </div>
            ) : null}
          </form>
        ) : null
      }
    >
      {(data) => (
        <Table testId="payments-customer-items-table">
          <thead>
            <tr>
              <th>Item</th>
              <th style={{ textAlign: "right" }}>Quantity</th>
            </tr>
          </thead>
          <tbody>
            {items.map(([id, item]) => (
              <tr key={id} data-item-id={id}>
                <td>
                  <strong>{item.displayName}</strong> <span className="small mono muted">{id}</span>
                </td>
                <td
                  className={`payments-quantity${(data[id] ?? 0) < 0 ? " negative" : ""}`}
                  data-testid={`quantity-${id}`}
                >
                  {(data[id] ?? 0).toLocaleString()}
                </td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
    </AsyncCard>
  );
}

function ProductsCard(props: { customer: Customer; config: PaymentsConfig; onChanged: () => void }) {
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
                <select name="grantProduct" value={productId} onChange={(e) => setProductId(e.target.value)}>
                  {products.map(([id, product]) => (
                    <option key={id} value={id}>
                      {product.displayName}
                    </option>
                  ))}
                </select>
              </Field>
              {stackable ? (
                <Field label="Quantity">
                  <input
                    type="number"
                    min={1}
                    name="grantQuantity"
                    className="payments-count"
                    value={quantity}
                    onChange={(e) => setQuantity(e.target.value)}
                  />
                </Field>
              ) : null}
              <Button type="submit" variant="primary" loading={busy} disabled={!productId || !quantityOk}>
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
                        size="sm"
                        label="Cancel subscription"
                        title={`Cancel ${name}?`}
                        description="It stays until the end of the current period, then ends along with the items that expire with it."
                        confirmLabel="Cancel subscription"
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

function TestPurchaseCard({ customer, config }: { customer: Customer; config: PaymentsConfig }) {
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
              <select name="purchaseProduct" value={productId} onChange={(e) => setProductId(e.target.value)}>
                {sellable.map(([id, product]) => {
                  const prices = product.prices === "include-by-default" ? [] : Object.values(product.prices);
                  return (
                    <option key={id} value={id}>
                      {product.displayName} ({prices.map((price) => priceWords(price)).join("; ")})
                    </option>
                  );
                })}
              </select>
            </Field>
            <Field label="Return URL (optional)">
              <input
                type="url"
                name="purchaseReturnUrl"
                placeholder="https://your-app.example/billing"
                value={returnUrl}
                onChange={(e) => setReturnUrl(e.target.value)}
              />
            </Field>
            <Button type="submit" variant="primary" loading={busy} disabled={!productId}>
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
                <a className="btn primary sm" href={url} target="_blank" rel="noreferrer">
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
