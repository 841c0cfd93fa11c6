import { isRedirectUrlTrusted, type KnownError, knownError } from "@gatehouse/shared";
import { z } from "zod";
import type { RenderedConfig } from "../../config/index.ts";
import { RATE_LIMITS } from "../../rate-limit/rules.ts";

/**
 * @simplewebauthn/server, loaded with the first passkey request rather than at start: with the certificate parsers
 * it brings (@peculiar/asn1-*) it takes ~0.25 s and ~13 MiB to load.
 */
export type WebAuthn = {
  server: typeof import("@simplewebauthn/server");
  helpers: typeof import("@simplewebauthn/server/helpers");
};

let loaded: Promise<WebAuthn> | undefined;

export function loadWebAuthn(): Promise<WebAuthn> {
  loaded ??= Promise.all([import("@simplewebauthn/server"), import("@simplewebauthn/server/helpers")]).then(
    ([server, helpers]) => ({ server, helpers }),
  );
  return loaded;
}

/** The relying-party id the options carry; the SDK puts the page's hostname in its place (PROTOCOL.md §4.8). */
export const RP_ID_PLACEHOLDER = "THIS_VALUE_WILL_BE_REPLACED.example.com";
/** A ceremony may take the browser's 60 s; the code lives 5 s longer so that a slow last click still lands. */
export const CEREMONY_TIMEOUT_MS = 60_000;
export const CHALLENGE_LIFETIME_MS = 65_000;
/** Ed25519, ES256 and RS256: what authenticators in the field support (PROTOCOL.md §4.8). */
export const SUPPORTED_ALGORITHMS = [-8, -7, -257];

/** Every challenge is a database row; this keeps one machine from filling the table. */
export const CHALLENGES_PER_IP = RATE_LIMITS.passkeyChallengesPerIp;

export function assertPasskeyEnabled(config: RenderedConfig): void {
  if (!config.auth.passkey.allowSignIn) throw knownError("PASSKEY_AUTHENTICATION_NOT_ENABLED");
}

/**
 * The user handle an authenticator stores for a user: the UTF-8 bytes of the user id, base64url-encoded. It comes
 * back in every assertion, so it must name the user and nothing more.
 */
export function userHandleOf(webAuthn: WebAuthn, userId: string): string {
  return webAuthn.helpers.isoBase64URL.fromUTF8String(userId);
}

export type Failure = (message: string) => KnownError;
export const registrationFailed: Failure = (message) =>
  knownError("PASSKEY_REGISTRATION_FAILED", undefined, message);
export const authenticationFailed: Failure = (message) =>
  knownError("PASSKEY_AUTHENTICATION_FAILED", undefined, message);

/**
 * Turns anything the WebAuthn library throws into a 400. Its own coded errors keep their code; the rest (bad
 * encoding, wrong challenge, origin or signature) are a failed ceremony. Never a 5xx: all of it is caller input.
 */
export function asCeremonyError(webAuthn: WebAuthn, error: unknown, fail: Failure): KnownError {
  if (error instanceof webAuthn.server.SimpleWebAuthnError) {
    return knownError("PASSKEY_WEBAUTHN_ERROR", { message: error.message, code: error.code });
  }
  // A TypeError or RangeError is the library tripping over malformed bytes; its text would only confuse.
  if (error instanceof TypeError || error instanceof RangeError) return fail("The credential is malformed.");
  return fail(error instanceof Error ? error.message : String(error));
}

/**
 * Where the ceremony ran, read from the client data the authenticator signed. That origin must be one of the
 * project's trusted domains (or localhost when allowed), and the RP id is its hostname: the browser would not have
 * let a page use any other.
 */
export function trustedCeremonyOrigin(
  webAuthn: WebAuthn,
  config: RenderedConfig,
  clientDataJSON: string,
  fail: Failure,
): { origin: string; rpId: string } {
  let origin: string;
  try {
    origin = webAuthn.helpers.decodeClientDataJSON(clientDataJSON).origin;
  } catch {
    throw fail("The client data is not valid base64url JSON.");
  }
  if (typeof origin !== "string") throw fail("The client data has no origin.");
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    throw fail("The client data's origin is not a URL.");
  }
  const trusted =
    url.origin === origin &&
    isRedirectUrlTrusted(origin, {
      allowLocalhost: config.domains.allowLocalhost,
      trustedDomains: Object.values(config.domains.trustedDomains).map((domain) => domain.baseUrl),
    });
  if (!trusted)
    throw fail(`The passkey was used on ${origin}, which is not a trusted domain of this project.`);
  return { origin, rpId: url.hostname };
}

// Request bodies. The outer objects are strict; the WebAuthn JSON is loose because browsers add fields to it
// (publicKey, authenticatorData, ...) as the standard grows.
const base64url = (max: number) => z.string().min(1).max(max);

/** What both ceremonies' responses carry besides their `response`. */
const credentialFields = {
  id: base64url(1024),
  rawId: base64url(1024),
  type: z.literal("public-key"),
  authenticatorAttachment: z.string().max(32).nullish(),
  clientExtensionResults: z.looseObject({}).default({}),
};

export const registrationResponseSchema = z.looseObject({
  ...credentialFields,
  response: z.looseObject({
    clientDataJSON: base64url(8192),
    attestationObject: base64url(65_536),
    transports: z.array(z.string().max(32)).max(16).optional(),
  }),
});

export const authenticationResponseSchema = z.looseObject({
  ...credentialFields,
  response: z.looseObject({
    clientDataJSON: base64url(8192),
    authenticatorData: base64url(8192),
    signature: base64url(2048),
    userHandle: z.string().max(1024).nullish(),
  }),
});
