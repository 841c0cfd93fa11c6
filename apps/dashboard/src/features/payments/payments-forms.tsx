import { type ReactNode, useRef, useState } from "react";
import { Button, Field, Modal } from "../../ui/components.tsx";
import { errorMessage } from "../../ui/hooks.ts";
import { Icon } from "../../ui/icons.tsx";
import {
  CURRENCIES,
  CUSTOMER_TYPE_LABELS,
  CUSTOMER_TYPES,
  type Currency,
  type CustomerType,
  EXPIRY_CHOICES,
  type Expiry,
  INTERVAL_UNITS,
  type IncludedItem,
  type Interval,
  type IntervalUnit,
  idProblem,
  type PaymentsConfig,
  type Price,
  type Product,
  slug,
} from "./payments-api.ts";

type Save = (override: Record<string, unknown>) => Promise<void>;

/**
 * The frame of every catalogue form: the fields, the server's refusal beside them (a config write is checked whole
 * on the server, e.g. "payments.products.pro.prices.monthly.USD: must be an amount …"), Cancel and Save.
 */
function CatalogueModal(props: {
  title: string;
  description: ReactNode;
  wide?: boolean;
  invalid: boolean;
  saveLabel: string;
  onClose: () => void;
  onSave: () => Promise<void>;
  children: ReactNode;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const submit = async () => {
    setBusy(true);
    setError(null);
    try {
      await props.onSave();
      props.onClose();
    } catch (caught) {
      setError(errorMessage(caught));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal
      title={props.title}
      description={props.description}
      wide={props.wide}
      onClose={() => !busy && props.onClose()}
      footer={
        <>
          <Button onClick={props.onClose} disabled={busy}>
            Cancel
          </Button>
          <Button variant="primary" loading={busy} disabled={props.invalid} onClick={submit}>
            {props.saveLabel}
          </Button>
        </>
      }
    >
      <form
        className="stack payments-form"
        onSubmit={(event) => {
          event.preventDefault();
          if (!props.invalid && !busy) void submit();
        }}
      >
        {props.children}
        {error ? (
          <div className="alert danger" role="alert" data-testid="payments-form-error">
            <div>
              <strong>The server refused this change.</strong>
              <div className="payments-error-text">{error}</div>
            </div>
          </div>
        ) : null}
        {/* Enter in a field submits. */}
        <button type="submit" hidden />
      </form>
    </Modal>
  );
}

function CustomerTypeSelect(props: {
  name: string;
  value: CustomerType;
  onChange: (value: CustomerType) => void;
}) {
  return (
    <select
      name={props.name}
      value={props.value}
      onChange={(e) => props.onChange(e.target.value as CustomerType)}
    >
      {CUSTOMER_TYPES.map((type) => (
        <option key={type} value={type}>
          {CUSTOMER_TYPE_LABELS[type]}
        </option>
      ))}
    </select>
  );
}

/** An id field for a new entry, proposed from the display name until typed into. */
function useNewId(existing: string | null) {
  const [typed, setTyped] = useState<string | null>(null);
  return {
    value: (displayName: string) => existing ?? typed ?? slug(displayName),
    set: setTyped,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Items and product lines
// ---------------------------------------------------------------------------------------------------------------

export function ItemFormModal(props: {
  config: PaymentsConfig;
  itemId: string | null;
  save: Save;
  onClose: () => void;
}) {
  const existing = props.itemId ? props.config.items[props.itemId] : undefined;
  const [displayName, setDisplayName] = useState(existing?.displayName ?? "");
  const [customerType, setCustomerType] = useState<CustomerType>(existing?.customerType ?? "user");
  const id = useNewId(props.itemId);
  const itemId = id.value(displayName);
  const problem = props.itemId ? null : idProblem(itemId, Object.keys(props.config.items), "item");
  return (
    <CatalogueModal
      title={props.itemId ? `Edit ${existing?.displayName ?? props.itemId}` : "New item"}
      description="Customers hold a quantity of an item. Products grant it; your server reads and spends it."
      invalid={Boolean(problem) || !displayName.trim()}
      saveLabel={props.itemId ? "Save item" : "Create item"}
      onClose={props.onClose}
      onSave={() =>
        props.save({
          [`payments.items.${itemId}`]: { displayName: displayName.trim(), customerType },
        })
      }
    >
      <Field label="Display name">
        <input
          type="text"
          name="itemDisplayName"
          value={displayName}
          onChange={(e) => setDisplayName(e.target.value)}
          placeholder="Credits"
        />
      </Field>
      <Field
        label="Item id"
        error={displayName || !props.itemId ? problem : null}
        hint="What your code names it: getItem(id). It cannot change later."
      >
        <input
          type="text"
          name="itemId"
          className={problem && displayName ? "invalid" : undefined}
          value={itemId}
          disabled={Boolean(props.itemId)}
          onChange={(e) => id.set(e.target.value)}
        />
      </Field>
      <Field label="Customer type" hint="Users, teams, or customers your app names itself.">
        <CustomerTypeSelect name="itemCustomerType" value={customerType} onChange={setCustomerType} />
      </Field>
    </CatalogueModal>
  );
}

export function ProductLineFormModal(props: {
  config: PaymentsConfig;
  lineId: string | null;
  save: Save;
  onClose: () => void;
}) {
  const existing = props.lineId ? props.config.productLines[props.lineId] : undefined;
  const [displayName, setDisplayName] = useState(existing?.displayName ?? props.lineId ?? "");
  const [customerType, setCustomerType] = useState<CustomerType>(existing?.customerType ?? "user");
  const id = useNewId(props.lineId);
  const lineId = id.value(displayName);
  const problem = props.lineId
    ? null
    : idProblem(lineId, Object.keys(props.config.productLines), "product line");
  return (
    <CatalogueModal
      title={props.lineId ? `Edit ${existing?.displayName ?? props.lineId}` : "New product line"}
      description="Products in one line exclude each other: a customer holds one of them, and buying another replaces it."
      invalid={Boolean(problem) || !displayName.trim()}
      saveLabel={props.lineId ? "Save product line" : "Create product line"}
      onClose={props.onClose}
      onSave={() =>
        props.save({
          [`payments.productLines.${lineId}`]: { displayName: displayName.trim(), customerType },
        })
      }
    >
      <Field label="Display name">
        <input
          type="text"
          name="lineDisplayName"
          value={displayName}
          onChange={(e) => setDisplayName(e.target.value)}
          placeholder="Plans"
        />
      </Field>
      <Field label="Product line id" error={displayName || !props.lineId ? problem : null}>
        <input
          type="text"
          name="lineId"
          value={lineId}
          disabled={Boolean(props.lineId)}
          onChange={(e) => id.set(e.target.value)}
        />
      </Field>
      <Field label="Customer type" hint="Every product of the line must be for this customer type.">
        <CustomerTypeSelect name="lineCustomerType" value={customerType} onChange={setCustomerType} />
      </Field>
    </CatalogueModal>
  );
}

// ---------------------------------------------------------------------------------------------------------------
// Products
// ---------------------------------------------------------------------------------------------------------------

type AmountDraft = { key: number; currency: Currency; amount: string };
type PriceDraft = {
  key: number;
  id: string;
  amounts: AmountDraft[];
  /** "once", or the unit of a recurring price. */
  billing: "once" | IntervalUnit;
  intervalCount: string;
  serverOnly: boolean;
  /** What the form does not edit (a free trial), written back unchanged. */
  kept: Partial<Price>;
};
type IncludedDraft = {
  key: number;
  itemId: string;
  quantity: string;
  repeat: "never" | IntervalUnit;
  repeatCount: string;
  expires: Expiry;
};

const EXPIRY_LABELS: Record<Expiry, string> = {
  "when-repeated": "When granted again",
  "when-purchase-expires": "When the purchase ends",
  never: "Never",
};

function isWholeNumber(text: string, min: number): boolean {
  return /^[0-9]+$/.test(text.trim()) && Number(text) >= min;
}

function priceDrafts(product: Product | undefined, nextKey: () => number): PriceDraft[] {
  if (!product || product.prices === "include-by-default") return [];
  return Object.entries(product.prices).map(([id, price]) => {
    const { interval, serverOnly, ...rest } = price;
    const kept: Partial<Price> = { ...rest };
    const amounts: AmountDraft[] = [];
    for (const currency of CURRENCIES) {
      if (price[currency] !== undefined) amounts.push({ key: nextKey(), currency, amount: price[currency]! });
      delete kept[currency];
    }
    return {
      key: nextKey(),
      id,
      amounts: amounts.length > 0 ? amounts : [{ key: nextKey(), currency: "USD", amount: "" }],
      billing: interval ? interval[1] : "once",
      intervalCount: String(interval?.[0] ?? 1),
      serverOnly: serverOnly === true,
      kept,
    };
  });
}

function includedDrafts(product: Product | undefined, nextKey: () => number): IncludedDraft[] {
  return Object.entries(product?.includedItems ?? {}).map(([itemId, included]) => ({
    key: nextKey(),
    itemId,
    quantity: String(included.quantity),
    repeat: included.repeat === "never" ? "never" : included.repeat[1],
    repeatCount: included.repeat === "never" ? "1" : String(included.repeat[0]),
    expires: included.expires,
  }));
}

export function ProductFormModal(props: {
  config: PaymentsConfig;
  productId: string | null;
  save: Save;
  onClose: () => void;
}) {
  const { config } = props;
  const existing = props.productId ? config.products[props.productId] : undefined;
  const keys = useRef(0);
  const nextKey = () => ++keys.current;
  const [displayName, setDisplayName] = useState(existing?.displayName ?? "");
  const [customerType, setCustomerType] = useState<CustomerType>(existing?.customerType ?? "user");
  const [lineId, setLineId] = useState(existing?.productLineId ?? "");
  const [stackable, setStackable] = useState(existing?.stackable ?? false);
  const [serverOnly, setServerOnly] = useState(existing?.serverOnly ?? false);
  const [prices, setPrices] = useState<PriceDraft[]>(() =>
    existing ? priceDrafts(existing, nextKey) : [newPrice(nextKey, "")],
  );
  const [included, setIncluded] = useState<IncludedDraft[]>(() => includedDrafts(existing, nextKey));
  const id = useNewId(props.productId);
  const productId = id.value(displayName);
  const legacyFree = existing?.prices === "include-by-default";

  const problems = {
    id: props.productId ? null : idProblem(productId, Object.keys(config.products), "product"),
    prices: prices.map((price, index) => {
      const others = prices.filter((_, i) => i !== index).map((other) => other.id);
      const currencies = price.amounts.map((amount) => amount.currency);
      if (idProblem(price.id, others, "price")) return idProblem(price.id, others, "price");
      if (new Set(currencies).size !== currencies.length) return "Each currency once per price.";
      if (price.billing !== "once" && !isWholeNumber(price.intervalCount, 1)) {
        return "Bill every 1 or more days, weeks, months or years.";
      }
      return null;
    }),
    included: included.map((entry, index) => {
      if (!entry.itemId) return "Choose an item.";
      if (included.some((other, i) => i !== index && other.itemId === entry.itemId)) {
        return "This item is included twice.";
      }
      if (!isWholeNumber(entry.quantity, 0)) return "The quantity is a whole number, 0 or more.";
      if (entry.repeat !== "never" && !isWholeNumber(entry.repeatCount, 1)) return "Repeat every 1 or more.";
      return null;
    }),
  };
  const invalid =
    !displayName.trim() ||
    Boolean(problems.id) ||
    problems.prices.some(Boolean) ||
    problems.included.some(Boolean);

  const entry = () => {
    const { productLineId: _line, prices: _prices, includedItems: _items, ...kept } = existing ?? {};
    const priceEntries = Object.fromEntries(
      prices.map((price) => {
        const amounts = Object.fromEntries(
          price.amounts.filter((a) => a.amount.trim() !== "").map((a) => [a.currency, a.amount.trim()]),
        );
        const interval: Interval | undefined =
          price.billing === "once" ? undefined : [Number(price.intervalCount), price.billing];
        return [
          price.id,
          { ...price.kept, ...amounts, ...(interval ? { interval } : {}), serverOnly: price.serverOnly },
        ];
      }),
    );
    const includedEntries = Object.fromEntries(
      included.map((item): [string, IncludedItem] => [
        item.itemId,
        {
          quantity: Number(item.quantity),
          repeat: item.repeat === "never" ? "never" : [Number(item.repeatCount), item.repeat],
          expires: item.expires,
        },
      ]),
    );
    return {
      ...kept,
      displayName: displayName.trim(),
      customerType,
      ...(lineId ? { productLineId: lineId } : {}),
      stackable,
      serverOnly,
      prices: legacyFree && prices.length === 0 ? "include-by-default" : priceEntries,
      includedItems: includedEntries,
    };
  };

  const updatePrice = (key: number, change: Partial<PriceDraft>) =>
    setPrices((all) => all.map((price) => (price.key === key ? { ...price, ...change } : price)));
  const updateIncluded = (key: number, change: Partial<IncludedDraft>) =>
    setIncluded((all) => all.map((item) => (item.key === key ? { ...item, ...change } : item)));
  const itemChoices = Object.entries(config.items);

  return (
    <CatalogueModal
      wide
      title={props.productId ? `Edit ${existing?.displayName ?? props.productId}` : "New product"}
      description="Prices without an interval are one-time purchases; with one, subscriptions."
      invalid={invalid}
      saveLabel={props.productId ? "Save product" : "Create product"}
      onClose={props.onClose}
      onSave={() => props.save({ [`payments.products.${productId}`]: entry() })}
    >
      <div className="grid2 payments-form-grid">
        <Field label="Display name">
          <input
            type="text"
            name="productDisplayName"
            value={displayName}
            onChange={(e) => setDisplayName(e.target.value)}
            placeholder="Pro"
          />
        </Field>
        <Field
          label="Product id"
          error={displayName || props.productId ? problems.id : null}
          hint="Your app names it when it creates a purchase link."
        >
          <input
            type="text"
            name="productId"
            value={productId}
            disabled={Boolean(props.productId)}
            onChange={(e) => id.set(e.target.value)}
          />
        </Field>
        <Field label="Customer type">
          <CustomerTypeSelect name="productCustomerType" value={customerType} onChange={setCustomerType} />
        </Field>
        <Field label="Product line" hint="Optional. A customer holds one product of a line at a time.">
          <select name="productLine" value={lineId} onChange={(e) => setLineId(e.target.value)}>
            <option value="">None</option>
            {Object.entries(config.productLines).map(([id, line]) => (
              <option key={id} value={id}>
                {line.displayName ?? id} ({CUSTOMER_TYPE_LABELS[line.customerType].toLowerCase()})
              </option>
            ))}
          </select>
        </Field>
      </div>
      <div className="row">
        <label className="checkbox">
          <input
            type="checkbox"
            name="productStackable"
            checked={stackable}
            onChange={(e) => setStackable(e.target.checked)}
          />
          Stackable: can be bought several times, in any quantity
        </label>
        <label className="checkbox">
          <input
            type="checkbox"
            name="productServerOnly"
            checked={serverOnly}
            onChange={(e) => setServerOnly(e.target.checked)}
          />
          Server only: clients cannot see or buy it
        </label>
      </div>

      <fieldset className="payments-fieldset" data-testid="product-prices">
        <legend>Prices</legend>
        {legacyFree && prices.length === 0 ? (
          <p className="muted small">Included by default: every customer has it for free (legacy).</p>
        ) : null}
        {prices.length === 0 && !legacyFree ? (
          <p className="muted small">No prices: the product can only be granted, not bought.</p>
        ) : null}
        {prices.map((price, index) => (
          <div key={price.key} className="payments-subform" data-price-index={index}>
            <div className="payments-subform-row">
              <Field label="Price id">
                <input
                  type="text"
                  name={`price-${index}-id`}
                  value={price.id}
                  className={problems.prices[index] && price.id ? "invalid" : undefined}
                  onChange={(e) => updatePrice(price.key, { id: e.target.value })}
                  placeholder="monthly"
                />
              </Field>
              <Field label="Billing">
                <div className="row payments-nowrap">
                  <select
                    name={`price-${index}-billing`}
                    value={price.billing}
                    onChange={(e) =>
                      updatePrice(price.key, { billing: e.target.value as PriceDraft["billing"] })
                    }
                  >
                    <option value="once">One-time</option>
                    {INTERVAL_UNITS.map((unit) => (
                      <option key={unit} value={unit}>
                        Every {unit}
                      </option>
                    ))}
                  </select>
                  {price.billing !== "once" ? (
                    <input
                      type="number"
                      min={1}
                      aria-label="Billing interval count"
                      name={`price-${index}-interval`}
                      className="payments-count"
                      value={price.intervalCount}
                      onChange={(e) => updatePrice(price.key, { intervalCount: e.target.value })}
                    />
                  ) : null}
                </div>
              </Field>
              <label className="checkbox payments-inline-check">
                <input
                  type="checkbox"
                  name={`price-${index}-server-only`}
                  checked={price.serverOnly}
                  onChange={(e) => updatePrice(price.key, { serverOnly: e.target.checked })}
                />
                Server only
              </label>
              <Button
                size="sm"
                variant="ghost"
                aria-label={`Remove price ${price.id || index + 1}`}
                onClick={() => setPrices((all) => all.filter((other) => other.key !== price.key))}
              >
                <Icon name="x" />
              </Button>
            </div>
            <div className="payments-amounts">
              {price.amounts.map((amount, amountIndex) => (
                <div key={amount.key} className="row payments-nowrap">
                  <select
                    name={`price-${index}-currency-${amountIndex}`}
                    aria-label="Currency"
                    value={amount.currency}
                    onChange={(e) =>
                      updatePrice(price.key, {
                        amounts: price.amounts.map((a, i) =>
                          i === amountIndex ? { ...a, currency: e.target.value as Currency } : a,
                        ),
                      })
                    }
                  >
                    {CURRENCIES.map((currency) => (
                      <option key={currency} value={currency}>
                        {currency}
                      </option>
                    ))}
                  </select>
                  <input
                    type="text"
                    inputMode="decimal"
                    aria-label={`Amount in ${amount.currency}`}
                    name={`price-${index}-amount-${amountIndex}`}
                    value={amount.amount}
                    placeholder={amount.currency === "JPY" ? "1000" : "29.99"}
                    onChange={(e) =>
                      updatePrice(price.key, {
                        amounts: price.amounts.map((a, i) =>
                          i === amountIndex ? { ...a, amount: e.target.value } : a,
                        ),
                      })
                    }
                  />
                  {price.amounts.length > 1 ? (
                    <Button
                      size="sm"
                      variant="ghost"
                      aria-label={`Remove ${amount.currency} amount`}
                      onClick={() =>
                        updatePrice(price.key, { amounts: price.amounts.filter((_, i) => i !== amountIndex) })
                      }
                    >
                      <Icon name="x" />
                    </Button>
                  ) : null}
                </div>
              ))}
              {price.amounts.length < CURRENCIES.length ? (
                <Button
                  size="sm"
                  variant="ghost"
                  onClick={() =>
                    updatePrice(price.key, {
                      amounts: [
                        ...price.amounts,
                        {
                          key: nextKey(),
                          currency:
                            CURRENCIES.find((c) => !price.amounts.some((a) => a.currency === c)) ?? "USD",
                          amount: "",
                        },
                      ],
                    })
                  }
                >
                  <Icon name="plus" /> Currency
                </Button>
              ) : null}
            </div>
            {problems.prices[index] && price.id ? (
              <span className="field-error">{problems.prices[index]}</span>
            ) : null}
          </div>
        ))}
        <div>
          <Button
            size="sm"
            onClick={() =>
              setPrices((all) => [
                ...all,
                newPrice(nextKey, all.length === 0 ? "" : `price-${all.length + 1}`),
              ])
            }
          >
            <Icon name="plus" /> Add price
          </Button>
        </div>
      </fieldset>

      <fieldset className="payments-fieldset" data-testid="product-included-items">
        <legend>Included items</legend>
        {included.length === 0 ? (
          <p className="muted small">
            {itemChoices.length === 0
              ? "No items in the catalogue yet: create one to include it here."
              : "None. Buying the product grants these items, times the quantity bought."}
          </p>
        ) : null}
        {included.map((entry, index) => (
          <div key={entry.key} className="payments-subform" data-included-index={index}>
            <div className="payments-subform-row">
              <Field label="Item">
                <select
                  name={`included-${index}-item`}
                  value={entry.itemId}
                  onChange={(e) => updateIncluded(entry.key, { itemId: e.target.value })}
                >
                  <option value="">Choose…</option>
                  {itemChoices.map(([itemId, item]) => (
                    <option key={itemId} value={itemId}>
                      {item.displayName} ({CUSTOMER_TYPE_LABELS[item.customerType].toLowerCase()})
                    </option>
                  ))}
                </select>
              </Field>
              <Field label="Quantity">
                <input
                  type="number"
                  min={0}
                  name={`included-${index}-quantity`}
                  className="payments-count"
                  value={entry.quantity}
                  onChange={(e) => updateIncluded(entry.key, { quantity: e.target.value })}
                />
              </Field>
              <Field label="Granted">
                <div className="row payments-nowrap">
                  <select
                    name={`included-${index}-repeat`}
                    value={entry.repeat}
                    onChange={(e) =>
                      updateIncluded(entry.key, { repeat: e.target.value as IncludedDraft["repeat"] })
                    }
                  >
                    <option value="never">Once</option>
                    {INTERVAL_UNITS.map((unit) => (
                      <option key={unit} value={unit}>
                        Every {unit}
                      </option>
                    ))}
                  </select>
                  {entry.repeat !== "never" ? (
                    <input
                      type="number"
                      min={1}
                      aria-label="Repeat interval count"
                      name={`included-${index}-repeat-count`}
                      className="payments-count"
                      value={entry.repeatCount}
                      onChange={(e) => updateIncluded(entry.key, { repeatCount: e.target.value })}
                    />
                  ) : null}
                </div>
              </Field>
              <Field label="Expires">
                <select
                  name={`included-${index}-expires`}
                  value={entry.expires}
                  onChange={(e) => updateIncluded(entry.key, { expires: e.target.value as Expiry })}
                >
                  {EXPIRY_CHOICES.map((choice) => (
                    <option key={choice} value={choice}>
                      {EXPIRY_LABELS[choice]}
                    </option>
                  ))}
                </select>
              </Field>
              <Button
                size="sm"
                variant="ghost"
                aria-label={`Remove included item ${entry.itemId || index + 1}`}
                onClick={() => setIncluded((all) => all.filter((other) => other.key !== entry.key))}
              >
                <Icon name="x" />
              </Button>
            </div>
            {problems.included[index] && entry.itemId ? (
              <span className="field-error">{problems.included[index]}</span>
            ) : null}
          </div>
        ))}
        {itemChoices.length > 0 ? (
          <div>
            <Button
              size="sm"
              onClick={() =>
                setIncluded((all) => [
                  ...all,
                  {
                    key: nextKey(),
                    itemId: itemChoices.find(([, item]) => item.customerType === customerType)?.[0] ?? "",
                    quantity: "1",
                    repeat: "never",
                    repeatCount: "1",
                    expires: "never",
                  },
                ])
              }
            >
              <Icon name="plus" /> Include an item
            </Button>
          </div>
        ) : null}
      </fieldset>
    </CatalogueModal>
  );
}

function newPrice(nextKey: () => number, id: string): PriceDraft {
  return {
    key: nextKey(),
    id: id || "default",
    amounts: [{ key: nextKey(), currency: "USD", amount: "" }],
    billing: "once",
    intervalCount: "1",
    serverOnly: false,
    kept: {},
  };
}
