/** The currencies a price may name (PROTOCOL-EXTRA §2.1), in the order their amounts are shown. */
export const CURRENCIES = ["USD", "EUR", "GBP", "JPY", "INR", "AUD", "CAD"] as const;
export type Currency = (typeof CURRENCIES)[number];

/** "29.99" in USD -> "$29.99" in the reader's locale; an amount or currency it cannot format stays as written. */
export function formatAmount(currency: string, amount: string): string {
  const value = Number(amount);
  if (!Number.isFinite(value)) return `${amount} ${currency}`;
  try {
    return new Intl.NumberFormat(undefined, { style: "currency", currency }).format(value);
  } catch {
    return `${amount} ${currency}`;
  }
}

/** A price's amounts by currency (its other fields left out), in the order of CURRENCIES. */
export function priceAmounts(price: Partial<Record<string, unknown>>): Array<[string, string]> {
  return CURRENCIES.flatMap((currency) =>
    typeof price[currency] === "string" ? [[currency, price[currency] as string] as [string, string]] : [],
  );
}

/** All of a price's amounts, `times` over, as one line: "$5.00 / €4.50". */
export function amountsLine(price: Partial<Record<string, unknown>>, times = 1): string {
  return priceAmounts(price)
    .map(([currency, amount]) =>
      formatAmount(currency, times === 1 ? amount : String(Number(amount) * times)),
    )
    .join(" / ");
}
