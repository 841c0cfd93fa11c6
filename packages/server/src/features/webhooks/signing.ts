/**
 * Standard Webhooks signing (PROTOCOL-EXTRA §3.3), as the protocol's webhook service signs: the secret is
 * `whsec_<base64 key>`; the signature is base64(HMAC-SHA256(key, "<id>.<timestamp>.<body>")), sent as `v1,<sig>`
 * under both header spellings (`webhook-*` and `svix-*`), so either kind of verifier works.
 */
import { createHmac, randomBytes } from "node:crypto";
import { decryptSecret, encryptSecret } from "../../crypto/index.ts";
import type { ServerEnv } from "../../env.ts";

const SECRET_PREFIX = "whsec_";
/** 24 random bytes, as the protocol's webhook service makes them (192 bits of key). */
const SECRET_BYTES = 24;
/** Encryption purpose of stored endpoint secrets: a ciphertext from another column will not decrypt as one. */
const SECRET_PURPOSE = "webhook-endpoint-secret";

export function generateEndpointSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(SECRET_BYTES).toString("base64")}`;
}

export function sealEndpointSecret(env: Pick<ServerEnv, "secret">, secret: string): string {
  return encryptSecret(secret, { masterSecret: env.secret, purpose: SECRET_PURPOSE });
}

export function openEndpointSecret(env: Pick<ServerEnv, "secret">, sealed: string): string {
  return decryptSecret(sealed, { masterSecret: env.secret, purpose: SECRET_PURPOSE });
}

/** `v1,<base64 signature>` of one message. */
export function signMessage(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(
    secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret,
    "base64",
  );
  const signature = createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest("base64");
  return `v1,${signature}`;
}

/** The headers of one delivery attempt: the message id is stable across attempts, the timestamp is the attempt's. */
export function signedHeaders(
  secret: string,
  id: string,
  body: string,
  timestamp = Math.floor(Date.now() / 1000),
): Record<string, string> {
  const signature = signMessage(secret, id, timestamp, body);
  return {
    "content-type": "application/json",
    "user-agent": "Gatehouse-Webhooks/1",
    "webhook-id": id,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": signature,
    "svix-id": id,
    "svix-timestamp": String(timestamp),
    "svix-signature": signature,
  };
}
