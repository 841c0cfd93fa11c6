import type { IconName } from "../../ui/icons.tsx";
import "./payments.css";

export type Interval = [number, string];

export type OfferedPrice = Partial<Record<string, unknown>> & { interval?: Interval; free_trial?: Interval };

export type Offer = {
  product: {
    display_name: string;
    stackable: boolean;
    prices: Record<string, OfferedPrice>;
    included_items: Record<string, { quantity: number; repeat: "never" | Interval }>;
  };
  project_id: string;
  project_display_name?: string;
  project_logo_url: string | null;
  already_bought_non_stackable: boolean;
  conflicting_products: { product_id: string; display_name: string }[];
  test_mode: boolean;
  /** Outside test mode: whether the project's Stripe account can take card payments. */
  charges_enabled: boolean;
};

export const CURRENCIES = ["USD", "EUR", "GBP", "JPY", "INR", "AUD", "CAD"] as const;

/** Why a call failed, without the server's text: a known error's code, an HTTP status, or no answer at all. */
export class PurchaseCallError extends Error {
  constructor(
    readonly code: string | null,
    readonly status: number | null,
  ) {
    super(code ?? (status === null ? "network error" : `status ${status}`));
  }
}

export async function post<T>(path: string, body: unknown): Promise<T> {
  let response: Response;
  try {
    response = await fetch(`/api/v1${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  } catch {
    throw new PurchaseCallError(null, null);
  }
  const code = response.headers.get("x-stack-known-error");
  if (code) throw new PurchaseCallError(code, response.status);
  if (!response.ok) throw new PurchaseCallError(null, response.status);
  return (await response.json()) as T;
}

export type Words = { title: string; text: string; icon: IconName; retry?: boolean; final: boolean };

export const LINK_WORDS: Record<string, Omit<Words, "icon" | "final">> = {
  VERIFICATION_CODE_NOT_FOUND: {
    title: "This purchase link does not work",
    text: "It may be incomplete or mistyped. Go back to the app and start the purchase again.",
  },
  VERIFICATION_CODE_EXPIRED: {
    title: "This purchase link has expired",
    text: "Purchase links work for 24 hours. Go back to the app and start the purchase again.",
  },
  VERIFICATION_CODE_ALREADY_USED: {
    title: "This purchase link was already used",
    text: "Each link completes one purchase, and this one is done. To buy again, start a new purchase in the app.",
  },
  VERIFICATION_CODE_MAX_ATTEMPTS_REACHED: {
    title: "This purchase link was tried too often",
    text: "For your safety it no longer works. Go back to the app and start the purchase again.",
  },
  REDIRECT_URL_NOT_WHITELISTED: {
    title: "This purchase link does not work",
    text: "It would send you back to an address the app does not trust. Go back to the app and start the purchase again.",
  },
};

/** A failure in words: `final` ones replace the page (the link itself is unusable), others sit above the button. */
export function wordsFor(error: unknown, stage: "open" | "buy"): Words {
  if (!(error instanceof PurchaseCallError)) {
    return {
      title: "Something went wrong",
      text: "This page ran into a problem. Reload it to try again.",
      icon: "x",
      final: stage === "open",
    };
  }
  const link = error.code ? LINK_WORDS[error.code] : undefined;
  if (link) return { ...link, icon: "lock", final: true };
  if (error.code === "NEW_PURCHASES_BLOCKED") {
    return {
      title: "Purchases are paused",
      text: "The app is not taking new purchases right now. Please try again later.",
      icon: "lock",
      final: stage === "open",
    };
  }
  if (error.code === "PRODUCT_ALREADY_GRANTED") {
    return {
      title: "You already have this product",
      text: "There is nothing more to buy here.",
      icon: "check",
      final: false,
    };
  }
  if (error.status === null) {
    return {
      title: "Could not reach the server",
      text: "Check your connection and try again.",
      icon: "globe",
      retry: true,
      final: stage === "open",
    };
  }
  if (error.status === 429) {
    return {
      title: "Too many attempts",
      text: "Wait a little, then try again.",
      icon: "lock",
      retry: true,
      final: stage === "open",
    };
  }
  if (error.status >= 500) {
    return {
      title: "Something went wrong on our side",
      text: "The purchase could not be handled right now. Try again in a moment.",
      icon: "x",
      retry: true,
      final: stage === "open",
    };
  }
  if (stage === "open") {
    return { ...LINK_WORDS.VERIFICATION_CODE_NOT_FOUND!, icon: "lock", final: true };
  }
  if (error.status === 403) {
    return {
      title: "Test purchases are turned off",
      text: "The app has left test mode, so this page cannot complete the purchase without a payment. Go back to the app and start again.",
      icon: "lock",
      final: false,
    };
  }
  return {
    title: "This purchase cannot be completed",
    text: "The chosen price or quantity is not available for this product. Go back to the app and try again.",
    icon: "x",
    final: false,
  };
}

export function formatAmount(currency: string, amount: string): string {
  const value = Number(amount);
  try {
    return new Intl.NumberFormat(undefined, { style: "currency", currency }).format(value);
  } catch {
    return `${amount} ${currency}`;
  }
}

export function amountsOf(price: OfferedPrice): Array<[string, string]> {
  return CURRENCIES.flatMap((currency) =>
    typeof price[currency] === "string" ? [[currency, price[currency] as string] as [string, string]] : [],
  );
}

export function periodWords(interval: Interval | undefined, oneTime = "one-time payment"): string {
  if (!interval) return oneTime;
  const [count, unit] = interval;
  return count === 1 ? `per ${unit}` : `every ${count} ${unit}s`;
}

export function trialWords(trial: Interval | undefined): string | null {
  if (!trial || trial[0] <= 0) return null;
  return `${trial[0]}-${trial[1]} free trial`;
}

/** An http(s) address to go back to, or null; the server has already checked it is one the project trusts. */
export function safeReturnUrl(value: string | null): string | null {
  if (!value) return null;
  try {
    const url = new URL(value, window.location.origin);
    return url.protocol === "https:" || url.protocol === "http:" ? url.toString() : null;
  } catch {
    return null;
  }
}

/** The full code from `/purchase/<full code>`; a malformed escape is left as it is (the server will not know it). */
export function decodedCode(pathname: string): string {
  const raw = pathname.slice("/purchase/".length).replace(/\/+$/, "");
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}
