import { isBrowser, type Runtime } from "../http/runtime.ts";
import {
  ACCESS_COOKIE_NAME,
  assertTokens,
  parseCookieHeader,
  refreshCookieName,
  type StoredTokens,
  sameTokens,
  type TokenStore,
  tokensFromCookies,
} from "./token-store.ts";

export const REFRESH_COOKIE_MAX_AGE_SECONDS = 31_536_000;
export const ACCESS_COOKIE_MAX_AGE_SECONDS = 86_400;
/** How often other tabs' cookie changes are looked for while someone listens. */
export const COOKIE_POLL_INTERVAL_MS = 100;

/** Writes one cookie for the whole site; `maxAge` 0 deletes it. */
export function setBrowserCookie(name: string, value: string, maxAgeSeconds: number): void {
  const secure = window.location.protocol === "https:" ? "; secure" : "";
  // biome-ignore lint/suspicious/noDocumentCookie: the Cookie Store API is async and missing in some browsers.
  document.cookie =
    `${name}=${encodeURIComponent(value)}; path=/; max-age=${maxAgeSeconds}; samesite=lax` + secure;
}

export function readBrowserCookies(): Map<string, string> {
  return parseCookieHeader(document.cookie);
}

/**
 * `tokenStore: "cookie"`: the tokens live in the site's cookies (PROTOCOL.md §1.4), so every tab of the site
 * and a server that reads the same cookies share one session. The cookies are the source of truth; each read
 * looks at them, and while anybody subscribes they are polled so that another tab's sign-in or sign-out shows.
 */
export class CookieTokenStore implements TokenStore {
  readonly kind = "cookie";
  readonly persistent = true;
  private readonly listeners = new Set<() => void>();
  private last: StoredTokens;
  private timer: unknown = null;

  constructor(
    private readonly projectId: string,
    private readonly runtime: Runtime,
  ) {
    if (!isBrowser()) {
      throw new Error(
        'tokenStore "cookie" only works in a browser. On a server, pass the incoming request as tokenStore, or use "memory".',
      );
    }
    this.last = this.read();
  }

  read(): StoredTokens {
    return tokensFromCookies(readBrowserCookies(), this.projectId);
  }

  write(tokens: StoredTokens): void {
    assertTokens(tokens);
    const name = refreshCookieName(this.projectId);
    if (tokens.refreshToken === null) {
      setBrowserCookie(name, "", 0);
      setBrowserCookie(ACCESS_COOKIE_NAME, "", 0);
    } else {
      setBrowserCookie(name, tokens.refreshToken, REFRESH_COOKIE_MAX_AGE_SECONDS);
      if (tokens.accessToken === null) setBrowserCookie(ACCESS_COOKIE_NAME, "", 0);
      else {
        setBrowserCookie(
          ACCESS_COOKIE_NAME,
          JSON.stringify([tokens.refreshToken, tokens.accessToken]),
          ACCESS_COOKIE_MAX_AGE_SECONDS,
        );
      }
    }
    this.check();
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    if (this.timer === null) {
      this.last = this.read();
      this.schedulePoll();
    }
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0 && this.timer !== null) {
        this.runtime.clearTimer(this.timer);
        this.timer = null;
      }
    };
  }

  private schedulePoll(): void {
    this.timer = this.runtime.setTimer(() => {
      this.check();
      if (this.listeners.size > 0) this.schedulePoll();
      else this.timer = null;
    }, COOKIE_POLL_INTERVAL_MS);
  }

  /** Tells the listeners when the cookies now say something else than last time. */
  private check(): void {
    const current = this.read();
    if (sameTokens(current, this.last)) return;
    this.last = current;
    for (const listener of [...this.listeners]) listener();
  }
}
