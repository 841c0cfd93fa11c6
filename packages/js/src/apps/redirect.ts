import type { Runtime } from "../http/runtime.ts";
import type { RedirectMethod } from "./options.ts";
import { AFTER_AUTH_RETURN_TO, checkRedirectTarget, currentOrigin } from "./urls.ts";

/** How long a redirect call keeps the caller waiting after navigating, so code after it does not run on. */
export const WAIT_AFTER_REDIRECT_MS = 2000;

/** Navigates the way the app's `redirectMethod` says, refusing targets on other sites. */
export class Redirector {
  constructor(
    readonly method: RedirectMethod,
    private readonly runtime: Runtime,
  ) {}

  /** Whether a redirect would actually navigate (false for `"none"`). */
  get navigates(): boolean {
    return this.method !== "none";
  }

  async redirectTo(url: string | URL, options: { replace?: boolean } = {}): Promise<void> {
    if (this.method === "none") return;
    const target = checkRedirectTarget(url, currentOrigin());
    if (this.method === "window") {
      if (typeof window === "undefined") throw new Error('redirectMethod "window" only works in a browser.');
      if (options.replace) window.location.replace(target);
      else window.location.assign(target);
    } else if (this.method.navigate) {
      this.method.navigate(target);
    } else {
      throw new Error(
        "This redirectMethod has only useNavigate, which only a React component can call; pass navigate as well.",
      );
    }
    await this.runtime.sleep(WAIT_AFTER_REDIRECT_MS);
  }
}

/** The current page's URL, or null outside a browser. */
export function currentUrl(): URL | null {
  return typeof window !== "undefined" && window.location ? new URL(window.location.href) : null;
}

/** `url` with `after_auth_return_to` set to the current page, so sign-in can come back here. */
export function withReturnTo(url: string): string {
  const here = currentUrl();
  if (here === null) return url;
  const target = new URL(url, here);
  target.searchParams.set(AFTER_AUTH_RETURN_TO, here.pathname + here.search + here.hash);
  return target.origin === here.origin ? target.pathname + target.search + target.hash : target.toString();
}

/** The page to land on after signing in or up: the `after_auth_return_to` of the current page, or `fallback`. */
export function afterAuthTarget(fallback: string): string {
  return currentUrl()?.searchParams.get(AFTER_AUTH_RETURN_TO) ?? fallback;
}

/**
 * `url` with the current page's `after_auth_return_to` carried over, for a page between sign-in and the target
 * (the MFA page), so that the user still lands where they were going.
 */
export function keepReturnTo(url: string): string {
  const here = currentUrl();
  const returnTo = here?.searchParams.get(AFTER_AUTH_RETURN_TO);
  if (!here || !returnTo) return url;
  const target = new URL(url, here);
  target.searchParams.set(AFTER_AUTH_RETURN_TO, returnTo);
  return target.origin === here.origin ? target.pathname + target.search + target.hash : target.toString();
}
