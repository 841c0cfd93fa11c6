/**
 * HTTP to OAuth providers whose addresses a project chose (an issuer, endpoint overrides, what the issuer's
 * discovery document names). Such an address makes this server send requests, so in production it gets the
 * webhooks' SSRF guard: https only, and no loopback, private, link-local or otherwise internal address, checked on
 * the addresses the connection really uses (DNS may change after any earlier check). In development anything goes
 * over the platform's fetch, so a local provider stands in for a real one.
 */
import type { IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import type { ServerEnv } from "../../env.ts";
import { assertLiteralHostAllowed, BlockedAddressError, guardedLookup } from "../../net/address-guard.ts";

export type Fetcher = (url: string, init?: RequestInit) => Promise<Response>;

/** Provider answers are small JSON documents; anything larger is not one. */
const MAX_RESPONSE_BYTES = 1024 * 1024;

/** Whether a URL's host is this machine, which development lets a project use over plain http. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[(.*)\]$/, "$1").toLowerCase();
  return (
    host === "localhost" || host.endsWith(".localhost") || host === "::1" || /^127(\.\d{1,3}){3}$/.test(host)
  );
}

/** Why `url` may not be used for a project's provider, or null: https, or http to this machine in development. */
export function ownerUrlProblem(env: Pick<ServerEnv, "isDevelopment">, url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `${url} is not a URL`;
  }
  if (parsed.username || parsed.password) return `${parsed.origin} must not carry a user name or password`;
  if (parsed.protocol === "https:") return null;
  if (parsed.protocol === "http:" && env.isDevelopment && isLoopbackHost(parsed.hostname)) return null;
  return `${url} must use https (plain http only for localhost, in development)`;
}

/** The platform's fetch, for the built-in providers' own addresses. One function, so caches keyed by it hold. */
export const platformFetch: Fetcher = (url, init) => fetch(url, init);

/** The fetch for a project's provider addresses. */
export function ownerProviderFetch(env: Pick<ServerEnv, "isDevelopment">): Fetcher {
  return env.isDevelopment ? platformFetch : guardedFetch;
}

function headersOf(init: RequestInit | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  new Headers(init?.headers).forEach((value, name) => {
    out[name] = value;
  });
  // No decompression below, so ask for none.
  out["accept-encoding"] = "identity";
  return out;
}

function bodyOf(init: RequestInit | undefined): string | undefined {
  const body = init?.body;
  if (body === undefined || body === null) return undefined;
  if (typeof body === "string") return body;
  if (body instanceof URLSearchParams) return body.toString();
  throw new TypeError("Provider requests send text bodies only");
}

/**
 * A fetch over node:http(s) with the SSRF guard on the socket's address lookup. Redirects are not followed: an
 * OAuth endpoint has no reason to redirect, and a redirect could point anywhere.
 */
export async function guardedFetch(url: string, init?: RequestInit): Promise<Response> {
  const target = new URL(url);
  if (target.protocol !== "https:") throw new BlockedAddressError(`${target.origin} does not use https`);
  assertLiteralHostAllowed(target);
  const body = bodyOf(init);
  const headers = headersOf(init);
  if (body !== undefined) headers["content-length"] = String(Buffer.byteLength(body));
  return new Promise<Response>((resolve, reject) => {
    const req = httpsRequest(
      target,
      {
        method: init?.method ?? "GET",
        headers,
        lookup: guardedLookup as never,
        signal: init?.signal ?? undefined,
      },
      (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on("data", (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_RESPONSE_BYTES) {
            req.destroy(new Error(`The provider's answer is larger than ${MAX_RESPONSE_BYTES} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        res.on("error", reject);
        res.on("end", () => {
          const responseHeaders = new Headers();
          for (const [name, value] of Object.entries(res.headers)) {
            if (Array.isArray(value)) for (const item of value) responseHeaders.append(name, item);
            else if (value !== undefined) responseHeaders.set(name, value);
          }
          const status = res.statusCode ?? 502;
          const nullBody = status === 204 || status === 304;
          resolve(
            new Response(nullBody ? null : Buffer.concat(chunks), { status, headers: responseHeaders }),
          );
        });
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}
