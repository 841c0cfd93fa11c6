/**
 * The webhook portal's credential, what `POST /webhooks/svix-token` returns: a signed, expiring token naming one
 * project, good for the `/webhooks-portal/…` routes of that project only (never for any other route).
 *
 *   ghwp_<base64url of {"p": project id, "exp": expiry in ms}>.<base64url of HMAC-SHA256 over the part before the dot>
 *
 * The HMAC key is derived (HKDF) from GATEHOUSE_SECRET with a label of its own, so every instance checks any token
 * without a database read, and no other signature of the server can pass for one. Checked in constant time.
 * Nothing is stored, so a token cannot be revoked before it expires (24 h); changing the secret revokes them all.
 */
import { createHmac, hkdfSync, timingSafeEqual } from "node:crypto";
import type { ServerEnv } from "../../env.ts";

export const PORTAL_TOKEN_PREFIX = "ghwp_";
export const PORTAL_TOKEN_LIFETIME_MS = 24 * 60 * 60 * 1000;
const HKDF_SALT = "gatehouse/webhook-portal-token/v1";

function keyOf(env: Pick<ServerEnv, "secret">): Buffer {
  return Buffer.from(hkdfSync("sha256", env.secret, HKDF_SALT, "purpose:webhook-portal-token", 32));
}

function mac(env: Pick<ServerEnv, "secret">, payload: string): Buffer {
  return createHmac("sha256", keyOf(env)).update(payload).digest();
}

export function createPortalToken(
  env: Pick<ServerEnv, "secret">,
  projectId: string,
  now = Date.now(),
): { token: string; expiresAtMillis: number } {
  const expiresAtMillis = now + PORTAL_TOKEN_LIFETIME_MS;
  const payload = Buffer.from(JSON.stringify({ p: projectId, exp: expiresAtMillis })).toString("base64url");
  return {
    token: `${PORTAL_TOKEN_PREFIX}${payload}.${mac(env, payload).toString("base64url")}`,
    expiresAtMillis,
  };
}

/** The project a valid, unexpired token names; null for anything else. */
export function verifyPortalToken(
  env: Pick<ServerEnv, "secret">,
  token: string,
  now = Date.now(),
): string | null {
  if (!token.startsWith(PORTAL_TOKEN_PREFIX) || token.length > 1000) return null;
  const [payload, signature, extra] = token.slice(PORTAL_TOKEN_PREFIX.length).split(".");
  if (!payload || !signature || extra !== undefined) return null;
  const expected = mac(env, payload);
  const given = Buffer.from(signature, "base64url");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  try {
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as {
      p?: unknown;
      exp?: unknown;
    };
    if (typeof claims.p !== "string" || typeof claims.exp !== "number" || claims.exp <= now) return null;
    return claims.p;
  } catch {
    return null;
  }
}
