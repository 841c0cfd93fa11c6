/** An end user's pair of tokens as a store holds them; null means "none". */
export type StoredTokens = { accessToken: string | null; refreshToken: string | null };

export const NO_TOKENS: StoredTokens = Object.freeze({ accessToken: null, refreshToken: null });

/**
 * Where an app keeps the signed-in user's tokens (the `tokenStore` option):
 * - `memory`: this process only (Node scripts, tests);
 * - `cookie`: the browser's cookies, shared by the tabs of a site;
 * - `fixed`: tokens handed in by the caller (`{accessToken, refreshToken}`), kept for one call;
 * - `request`: tokens read from an incoming request (`x-stack-auth` header or cookies), kept for one call.
 */
export interface TokenStore {
  readonly kind: "memory" | "cookie" | "fixed" | "request";
  /** Whether tokens written here outlive the current call, which sign-in needs. */
  readonly persistent: boolean;
  read(): StoredTokens;
  write(tokens: StoredTokens): void;
  /** Called whenever the tokens change, here or (for cookies) in another tab. Returns the unsubscribe. */
  subscribe(listener: () => void): () => void;
}

/**
 * A token is an opaque string; the literal "undefined" is what a template string makes of a missing value
 * (`${undefined}`), so it is a bug on the caller's side, never a token.
 */
export function assertTokenValue(kind: "Access" | "Refresh", value: unknown): asserts value is string | null {
  if (value === null) return;
  if (typeof value !== "string") throw new TypeError(`${kind} token must be a string or null.`);
  if (value === "undefined") {
    throw new TypeError(
      `${kind} token cannot be the string "undefined"; a missing value was probably turned into a string.`,
    );
  }
}

export function assertTokens(tokens: StoredTokens): void {
  assertTokenValue("Access", tokens.accessToken);
  assertTokenValue("Refresh", tokens.refreshToken);
}

export function sameTokens(a: StoredTokens, b: StoredTokens): boolean {
  return a.accessToken === b.accessToken && a.refreshToken === b.refreshToken;
}

/** Keeps tokens in this object; the base of every store but the cookie one. */
export class InMemoryTokenStore implements TokenStore {
  private tokens: StoredTokens;
  private readonly listeners = new Set<() => void>();

  constructor(
    readonly kind: "memory" | "fixed" | "request",
    initial: StoredTokens = NO_TOKENS,
  ) {
    assertTokens(initial);
    this.tokens = { accessToken: initial.accessToken, refreshToken: initial.refreshToken };
  }

  get persistent(): boolean {
    return this.kind === "memory";
  }

  read(): StoredTokens {
    return this.tokens;
  }

  write(tokens: StoredTokens): void {
    assertTokens(tokens);
    if (sameTokens(tokens, this.tokens)) return;
    this.tokens = { accessToken: tokens.accessToken, refreshToken: tokens.refreshToken };
    for (const listener of [...this.listeners]) listener();
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }
}

/** Something shaped like an incoming HTTP request: a Fetch `Request`, a Node-style headers record, ... */
export type RequestLike = {
  headers: { get: (name: string) => string | null } | Record<string, string | string[] | null | undefined>;
};

export function isRequestLike(value: unknown): value is RequestLike {
  return (
    typeof value === "object" &&
    value !== null &&
    "headers" in value &&
    typeof (value as { headers: unknown }).headers === "object" &&
    (value as { headers: unknown }).headers !== null
  );
}

function headerOf(request: RequestLike, name: string): string | null {
  const { headers } = request;
  if (typeof (headers as { get?: unknown }).get === "function") {
    return (headers as { get: (name: string) => string | null }).get(name);
  }
  const record = headers as Record<string, string | string[] | null | undefined>;
  const key = Object.keys(record).find((candidate) => candidate.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? (value[0] ?? null) : (value ?? null);
}

/** `a=1; b=2` → Map; values are URI-decoded where that works. */
export function parseCookieHeader(header: string | null | undefined): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const part of (header ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq === -1) continue;
    const name = part.slice(0, eq).trim();
    const raw = part.slice(eq + 1).trim();
    if (!name || cookies.has(name)) continue;
    try {
      cookies.set(name, decodeURIComponent(raw));
    } catch {
      cookies.set(name, raw);
    }
  }
  return cookies;
}

export const refreshCookieName = (projectId: string) => `stack-refresh-${projectId}`;
export const ACCESS_COOKIE_NAME = "stack-access";

/**
 * The tokens the browser's cookies carry: the refresh token from `stack-refresh-<projectId>`, and the access
 * token from `stack-access` (a JSON pair `[refreshToken, accessToken]`) only when it belongs to that refresh token.
 */
export function tokensFromCookies(cookies: Map<string, string>, projectId: string): StoredTokens {
  const refreshToken = usable(cookies.get(refreshCookieName(projectId)));
  let accessToken: string | null = null;
  const pair = cookies.get(ACCESS_COOKIE_NAME);
  if (pair && refreshToken) {
    try {
      const parsed: unknown = JSON.parse(pair);
      if (Array.isArray(parsed) && parsed[0] === refreshToken) accessToken = usable(parsed[1]);
    } catch {
      // A damaged cookie is as good as none: the access token is refreshed.
    }
  }
  return { accessToken, refreshToken };
}

function usable(value: unknown): string | null {
  return typeof value === "string" && value !== "" && value !== "undefined" ? value : null;
}

function authJson(value: unknown): StoredTokens | null {
  if (typeof value !== "object" || value === null) return null;
  const { accessToken = null, refreshToken = null } = value as Record<string, unknown>;
  const tokens = { accessToken, refreshToken } as StoredTokens;
  assertTokens(tokens);
  return tokens;
}

/**
 * Reads the tokens of an incoming request (PROTOCOL.md §1.4): `Authorization: Bearer stackauth_<base64 JSON>`,
 * then the `x-stack-auth` JSON header, then the SDK's cookies.
 */
export function tokensFromRequest(request: RequestLike, projectId: string): StoredTokens {
  const authorization = headerOf(request, "authorization");
  const bearer = /^bearer\s+(?:stackauth|hexclave)_(.+)$/i.exec(authorization?.trim() ?? "");
  if (bearer) {
    try {
      const tokens = authJson(JSON.parse(atob(bearer[1]!)));
      if (tokens) return tokens;
    } catch (error) {
      if (error instanceof TypeError) throw error;
      // Not ours; fall through to the other carriers.
    }
  }
  const header = headerOf(request, "x-stack-auth");
  if (header) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(header);
    } catch {
      throw new TypeError("The x-stack-auth header must be JSON: {accessToken, refreshToken}.");
    }
    const tokens = authJson(parsed);
    if (tokens) return tokens;
  }
  return tokensFromCookies(parseCookieHeader(headerOf(request, "cookie")), projectId);
}
