/**
 * Request headers of the wire protocol (PROTOCOL.md §1.2). SDKs up to 2.8.102 send them as `x-stack-<name>`,
 * later ones as `x-hexclave-<name>`; we accept both and answer with `x-stack-*` response headers.
 */
export const PROTOCOL_HEADER_NAMES = [
  "project-id",
  "branch-id",
  "access-type",
  "publishable-client-key",
  "secret-server-key",
  "super-secret-admin-key",
  "admin-access-token",
  "access-token",
  "refresh-token",
  "allow-anonymous-user",
  "allow-restricted-user",
  "override-error-status",
  "client-version",
  "random-nonce",
  "disable-artificial-development-delay",
  "development-disable-extended-logging",
  "development-override-key",
] as const;

export type ProtocolHeaderName = (typeof PROTOCOL_HEADER_NAMES)[number];

const PREFIXES = ["x-stack-", "x-hexclave-"] as const;

/** The value of a protocol header under either prefix; `undefined` when absent. */
export function readProtocolHeader(headers: Headers, name: ProtocolHeaderName): string | undefined {
  for (const prefix of PREFIXES) {
    const value = headers.get(prefix + name);
    if (value !== null) return value;
  }
  return undefined;
}

/** The full list for `Access-Control-Allow-Headers`: both prefixes plus what browsers and proxies add. */
export const CORS_ALLOWED_HEADERS = [
  ...PREFIXES.flatMap((prefix) => PROTOCOL_HEADER_NAMES.map((name) => prefix + name)),
  "content-type",
  "authorization",
  "baggage",
  "sentry-trace",
  "x-vercel-protection-bypass",
  "ngrok-skip-browser-warning",
].join(", ");
