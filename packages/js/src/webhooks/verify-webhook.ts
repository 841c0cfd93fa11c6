/**
 * Checking a webhook from Gatehouse on the receiving server, so receivers need no other library. The scheme is
 * Standard Webhooks, as the protocol's webhook service uses (PROTOCOL-EXTRA §3.3): the signature header holds
 * `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<raw body>">` entries, keyed with the base64 part of the endpoint's
 * `whsec_…` secret. Headers come as `webhook-*` or `svix-*`; either set is accepted. WebCrypto only, so it runs in
 * Node, Deno, Bun and edge runtimes alike.
 *
 *   const event = await verifyWebhook(process.env.WEBHOOK_SECRET, rawBody, request.headers);
 *   if (event.type === "user.created") ...
 */

/** Why a webhook was refused; `reason` names the check that failed. */
export class WebhookVerificationError extends Error {
  override readonly name = "WebhookVerificationError";
  constructor(
    readonly reason:
      | "missing-headers"
      | "invalid-timestamp"
      | "timestamp-out-of-tolerance"
      | "invalid-signature"
      | "invalid-body",
    message: string,
  ) {
    super(message);
  }
}

/** A fetch `Headers`, or a plain object as Node's `IncomingMessage.headers` (names in any case). */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export type VerifyWebhookOptions = {
  /** How far the webhook's timestamp may be from now, either way; 300 s (5 minutes) unless told. */
  toleranceSeconds?: number;
  /** The time to check against; now unless told (tests). */
  now?: Date | number;
};

/** A verified webhook's payload. */
export type WebhookEvent<T = unknown> = { type: string; data: T };

const DEFAULT_TOLERANCE_SECONDS = 5 * 60;

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((candidate) => candidate.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value.join(" ") : value;
}

function base64ToBytes(text: string): Uint8Array<ArrayBuffer> | null {
  try {
    const binary = atob(text);
    return Uint8Array.from(binary, (char) => char.charCodeAt(0));
  } catch {
    return null;
  }
}

/** Compares two byte strings in time that depends on their length only. */
function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a[i]! ^ b[i]!;
  return difference === 0;
}

/**
 * Checks a webhook's signature and timestamp and returns its payload `{type, data}`; throws
 * `WebhookVerificationError` otherwise. `body` must be the raw request body, byte for byte (not re-serialized JSON).
 */
export async function verifyWebhook<T = unknown>(
  secret: string,
  body: string | Uint8Array,
  headers: WebhookHeaders,
  options: VerifyWebhookOptions = {},
): Promise<WebhookEvent<T>> {
  const prefix = header(headers, "webhook-id") !== undefined ? "webhook" : "svix";
  const id = header(headers, `${prefix}-id`);
  const timestamp = header(headers, `${prefix}-timestamp`);
  const signatures = header(headers, `${prefix}-signature`);
  if (!id || !timestamp || !signatures) {
    throw new WebhookVerificationError(
      "missing-headers",
      "The webhook-id, webhook-timestamp and webhook-signature headers (or their svix-* spelling) are required.",
    );
  }
  if (!/^\d{1,15}$/.test(timestamp)) {
    throw new WebhookVerificationError(
      "invalid-timestamp",
      "The webhook timestamp is not a number of seconds.",
    );
  }
  const nowSeconds = Math.floor(Number(options.now ?? Date.now()) / 1000);
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (Math.abs(nowSeconds - Number(timestamp)) > tolerance) {
    throw new WebhookVerificationError(
      "timestamp-out-of-tolerance",
      `The webhook timestamp is more than ${tolerance} s away from now (a replay, or a wrong clock).`,
    );
  }

  const keyBytes = base64ToBytes(secret.startsWith("whsec_") ? secret.slice("whsec_".length) : secret);
  if (!keyBytes || keyBytes.length === 0) throw new TypeError("The webhook secret is not a whsec_… secret.");
  const bodyBytes = typeof body === "string" ? new TextEncoder().encode(body) : body;
  const head = new TextEncoder().encode(`${id}.${timestamp}.`);
  const signed = new Uint8Array(head.length + bodyBytes.length);
  signed.set(head);
  signed.set(bodyBytes, head.length);
  const key = await crypto.subtle.importKey("raw", keyBytes, { name: "HMAC", hash: "SHA-256" }, false, [
    "sign",
  ]);
  const expected = new Uint8Array(await crypto.subtle.sign("HMAC", key, signed));

  // Several space-separated entries may be sent (a rotated secret); any `v1` one that matches is enough.
  let matched = false;
  for (const entry of signatures.split(" ")) {
    const [version, value] = entry.split(",", 2);
    if (version !== "v1" || !value) continue;
    const given = base64ToBytes(value);
    if (given && equalBytes(given, expected)) matched = true;
  }
  if (!matched) {
    throw new WebhookVerificationError(
      "invalid-signature",
      "No webhook signature matches this secret and body.",
    );
  }

  try {
    return JSON.parse(typeof body === "string" ? body : new TextDecoder().decode(body)) as WebhookEvent<T>;
  } catch {
    throw new WebhookVerificationError("invalid-body", "The webhook body is not JSON.");
  }
}
