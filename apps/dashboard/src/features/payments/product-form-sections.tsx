import { Button } from "@gatehouse/react/ui";
import { Field } from "../../ui/components.tsx";
import { Icon } from "../../ui/icons.tsx";
import {
  CURRENCIES,
  CUSTOMER_TYPE_LABELS,
  type Currency,
  EXPIRY_CHOICES,
  type Expiry,
  INTERVAL_UNITS,
} from "./payments-api.ts";
import {
  EXPIRY_LABELS,
  type IncludedDraft,
  newPrice,
  type PriceDraft,
  type ProductForm,
} from "./product-form-state.ts";

/** The product's prices: each with its id, billing period, amounts per currency and "server only". */
export function PricesFieldset({ form }: { form: ProductForm }) {
  const { prices, problems, updatePrice, nextKey, setPrices, legacyFree } = form;
  return (
    <fieldset className="boxed-fieldset payments-fieldset" data-testid="product-prices">
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
              small
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
                    small
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
                small
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
          variant="secondary"
          small
          onClick={() =>
            setPrices((all) => [...all, newPrice(nextKey, all.length === 0 ? "" : `price-${all.length + 1}`)])
          }
        >
          <Icon name="plus" /> Add price
        </Button>
      </div>
    </fieldset>
  );
}

/** The items a purchase grants, with their quantity, repetition and expiry. */
export function IncludedItemsFieldset({ form }: { form: ProductForm }) {
  const { included, problems, updateIncluded, nextKey, setIncluded, itemChoices, customerType } = form;
  return (
    <fieldset className="boxed-fieldset payments-fieldset" data-testid="product-included-items">
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
              small
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
            variant="secondary"
            small
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
  );
}
