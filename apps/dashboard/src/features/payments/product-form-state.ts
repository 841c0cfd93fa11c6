import { useRef, useState } from "react";
import { useNewId } from "./catalogue-modal.tsx";
import {
  CURRENCIES,
  type Currency,
  type CustomerType,
  type Expiry,
  type IncludedItem,
  type Interval,
  type IntervalUnit,
  idProblem,
  type PaymentsConfig,
  type Price,
  type Product,
} from "./payments-api.ts";

export type AmountDraft = { key: number; currency: Currency; amount: string };
export type PriceDraft = {
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
export type IncludedDraft = {
  key: number;
  itemId: string;
  quantity: string;
  repeat: "never" | IntervalUnit;
  repeatCount: string;
  expires: Expiry;
};

export const EXPIRY_LABELS: Record<Expiry, string> = {
  "when-repeated": "When granted again",
  "when-purchase-expires": "When the purchase ends",
  never: "Never",
};

export function isWholeNumber(text: string, min: number): boolean {
  return /^[0-9]+$/.test(text.trim()) && Number(text) >= min;
}

export function priceDrafts(product: Product | undefined, nextKey: () => number): PriceDraft[] {
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

export function includedDrafts(product: Product | undefined, nextKey: () => number): IncludedDraft[] {
  return Object.entries(product?.includedItems ?? {}).map(([itemId, included]) => ({
    key: nextKey(),
    itemId,
    quantity: String(included.quantity),
    repeat: included.repeat === "never" ? "never" : included.repeat[1],
    repeatCount: included.repeat === "never" ? "1" : String(included.repeat[0]),
    expires: included.expires,
  }));
}

export function newPrice(nextKey: () => number, id: string): PriceDraft {
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

/**
 * The product form's state: the fields, the prices and included items as drafts (with stable keys for React), what
 * is wrong with them, and the config entry they make. The form's sections share it.
 */
export function useProductForm(config: PaymentsConfig, editedId: string | null) {
  const existing = editedId ? config.products[editedId] : undefined;
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
  const id = useNewId(editedId);
  const productId = id.value(displayName);
  const legacyFree = existing?.prices === "include-by-default";

  const problems = {
    id: editedId ? null : idProblem(productId, Object.keys(config.products), "product"),
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
  return {
    config,
    existing,
    nextKey,
    displayName,
    setDisplayName,
    customerType,
    setCustomerType,
    lineId,
    setLineId,
    stackable,
    setStackable,
    serverOnly,
    setServerOnly,
    prices,
    setPrices,
    included,
    setIncluded,
    id,
    productId,
    legacyFree,
    problems,
    invalid,
    entry,
    updatePrice,
    updateIncluded,
    itemChoices,
  };
}

export type ProductForm = ReturnType<typeof useProductForm>;
