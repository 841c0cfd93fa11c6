/**
 * The purchase page's words and figures (pure): every failure said for an end user, never the API's own text;
 * periods and trials (amounts are the kit's, ui/money.ts); the code and return URL read from the page's address.
 */
import { ConnectionError, HttpStatusError, isKnownError } from "@gatehouse/js";

export type Interval = [number, string];
export type FailureIcon = "lock" | "x" | "globe" | "check";
export type Words = { title: string; text: string; icon: FailureIcon; retry?: boolean; final: boolean };

const LINK_WORDS: Record<string, Pick<Words, "title" | "text">> = {
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

/** A known error's code and the answer's status, or nulls when the server was never reached. */
function failureOf(error: unknown): { code: string | null; status: number | null } | null {
  if (isKnownError(error)) return { code: error.code, status: error.status };
  if (error instanceof HttpStatusError) return { code: null, status: error.status };
  if (error instanceof ConnectionError) return { code: null, status: null };
  return null;
}

/** A failure in words: `final` ones replace the page (the link itself is unusable), others sit above the button. */
export function wordsFor(error: unknown, stage: "open" | "buy"): Words {
  const failure = failureOf(error);
  const onOpen = stage === "open";
  if (!failure) {
    return {
      title: "Something went wrong",
      text: "This page ran into a problem. Reload it to try again.",
      icon: "x",
      final: onOpen,
    };
  }
  const link = failure.code ? LINK_WORDS[failure.code] : undefined;
  if (link) return { ...link, icon: "lock", final: true };
  if (failure.code === "NEW_PURCHASES_BLOCKED") {
    return {
      title: "Purchases are paused",
      text: "The app is not taking new purchases right now. Please try again later.",
      icon: "lock",
      final: onOpen,
    };
  }
  if (failure.code === "PRODUCT_ALREADY_GRANTED") {
    return {
      title: "You already have this product",
      text: "There is nothing more to buy here.",
      icon: "check",
      final: false,
    };
  }
  const retry = (title: string, text: string, icon: FailureIcon): Words => ({
    title,
    text,
    icon,
    retry: true,
    final: onOpen,
  });
  if (failure.status === null)
    return retry("Could not reach the server", "Check your connection and try again.", "globe");
  if (failure.status === 429) return retry("Too many attempts", "Wait a little, then try again.", "lock");
  if (failure.status >= 500) {
    return retry(
      "Something went wrong on our side",
      "The purchase could not be handled right now. Try again in a moment.",
      "x",
    );
  }
  if (onOpen) return { ...LINK_WORDS.VERIFICATION_CODE_NOT_FOUND!, icon: "lock", final: true };
  if (failure.status === 403) {
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
export function safeReturnUrl(value: string | null | undefined): string | null {
  if (!value) return null;
  try {
    const url = new URL(value, window.location.origin);
    return url.protocol === "https:" || url.protocol === "http:" ? url.toString() : null;
  } catch {
    return null;
  }
}

/** The full code from `<prefix><full code>`; a malformed escape is left as it is (the server will not know it). */
export function decodedCode(pathname: string, prefix = "/purchase/"): string {
  const raw = pathname.slice(prefix.length).replace(/\/+$/, "");
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}
