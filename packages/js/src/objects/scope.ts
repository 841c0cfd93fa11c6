import type { AppContext } from "../apps/context.ts";
import type { AccessType } from "../http/api-client.ts";
import type { Session } from "../session/session.ts";

/**
 * Who an object's methods act as: the app, the access type, and (for a signed-in user's own objects) the
 * session. A client user's objects use `me` paths with the session; a server's objects use ids and the server key.
 */
export type Scope = {
  ctx: AppContext;
  accessType: AccessType;
  session: Session | null;
};

/** Sends one call as the scope; `T` is the route's wire type (@gatehouse/shared), `unknown` if left out. */
export function call<T = unknown>(
  scope: Scope,
  path: string,
  options: { method?: string; body?: unknown } = {},
): Promise<T> {
  return scope.ctx.call<T>(path, { ...options, accessType: scope.accessType, session: scope.session });
}

/** `path?a=1&b=2`, leaving out undefined and null values. */
export function withQuery(
  path: string,
  params: Record<string, string | number | boolean | null | undefined>,
) {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null) search.set(key, String(value));
  }
  const query = search.toString();
  return query ? `${path}?${query}` : path;
}

/** Drops the keys whose value is undefined, so PATCH bodies carry only what the caller changes. */
export function defined<T extends Record<string, unknown>>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

export const seg = encodeURIComponent;

export function dateOrNull(millis: unknown): Date | null {
  return typeof millis === "number" ? new Date(millis) : null;
}

export function bytesToBase64(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}
