import type { GatehouseClientApp } from "@gatehouse/js";
import { gatehouseInternals } from "@gatehouse/js";
import { startTransition, useEffect, useState } from "react";

/** Fired after every history change made through pushState/replaceState (which fire no event themselves). */
export const LOCATION_CHANGE_EVENT = "gatehouse:locationchange";

let historyPatched = false;

/**
 * Makes pushState and replaceState announce themselves, so that the handler follows navigations made by any
 * router of the host app, not only the back and forward buttons (popstate).
 */
function patchHistory(): void {
  if (historyPatched || typeof window === "undefined") return;
  historyPatched = true;
  for (const method of ["pushState", "replaceState"] as const) {
    const original = window.history[method];
    window.history[method] = function patched(this: History, ...args: Parameters<History["pushState"]>) {
      const result = original.apply(this, args);
      window.dispatchEvent(new Event(LOCATION_CHANGE_EVENT));
      return result;
    };
  }
}

function readLocation(): URL {
  return new URL(typeof window === "undefined" ? "http://localhost/" : window.location.href);
}

/** The current URL, re-rendering on navigation (as a transition: the old page stays up while the new loads). */
export function useLocation(): URL {
  const [location, setLocation] = useState(readLocation);
  useEffect(() => {
    patchHistory();
    const update = () => {
      const next = readLocation();
      startTransition(() => setLocation((current) => (current.href === next.href ? current : next)));
    };
    window.addEventListener("popstate", update);
    window.addEventListener(LOCATION_CHANGE_EVENT, update);
    update();
    return () => {
      window.removeEventListener("popstate", update);
      window.removeEventListener(LOCATION_CHANGE_EVENT, update);
    };
  }, []);
  return location;
}

/** Client-side navigation for single-page apps: pass `{ navigate }` as the app's `redirectMethod`. */
export function navigate(to: string, options: { replace?: boolean } = {}): void {
  patchHistory();
  const url = new URL(to, window.location.href);
  if (url.origin !== window.location.origin) {
    window.location.assign(url.toString());
    return;
  }
  const target = url.pathname + url.search + url.hash;
  if (options.replace) window.history.replaceState(null, "", target);
  else window.history.pushState(null, "", target);
  window.scrollTo?.(0, 0);
}

/** A path on this site with `after_auth_return_to` kept, so that moving between sign-in pages loses nothing. */
export function withCurrentReturnTo(path: string): string {
  if (typeof window === "undefined") return path;
  const returnTo = new URL(window.location.href).searchParams.get("after_auth_return_to");
  if (!returnTo) return path;
  const url = new URL(path, window.location.href);
  url.searchParams.set("after_auth_return_to", returnTo);
  return url.origin === window.location.origin ? url.pathname + url.search + url.hash : url.toString();
}

/**
 * Goes to `to` the way the app navigates: its own redirect method, except that handler pages under the same
 * `handlerBase` switch in place (the handler follows history changes).
 */
export function appNavigate(
  app: GatehouseClientApp,
  to: string,
  options: { replace?: boolean; handlerBase?: string } = {},
): void {
  const base = options.handlerBase ?? app.urls.handler;
  if (typeof window !== "undefined" && base && base !== "/") {
    const url = new URL(to, window.location.href);
    if (
      url.origin === window.location.origin &&
      (url.pathname === base || url.pathname.startsWith(`${base}/`))
    ) {
      navigate(to, options);
      return;
    }
  }
  app[gatehouseInternals].redirectToUrl(to, { replace: options.replace ?? false }).catch(() => {});
}
