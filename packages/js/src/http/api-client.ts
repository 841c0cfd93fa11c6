import { isKnownError, KnownError, type KnownErrorJson } from "@gatehouse/shared";
import { CLIENT_VERSION_HEADER } from "../version.ts";
import { connectionError } from "./diagnostics.ts";
import { HttpStatusError, InvalidServerResponseError } from "./errors.ts";
import type { Runtime } from "./runtime.ts";

export type AccessType = "client" | "server" | "admin";

/** Where an end user's tokens come from for one request (a session, see src/session/). */
export interface TokenSource {
  /** The tokens to send, refreshing the access token first when it is missing or about to expire. */
  getTokens(): Promise<{ accessToken: string | null; refreshToken: string | null }>;
  /** The server rejected this access token; the next `getTokens` must not hand it out again. */
  markAccessTokenExpired(accessToken: string): void;
}

export type ApiClientConfig = {
  projectId: string;
  /** Without the `/api/v1` suffix and without a trailing slash. */
  baseUrl: string;
  /** Which app kind sends: server apps always send the server key header, admin apps also the admin key. */
  appKind: AccessType;
  publishableClientKey?: string | undefined;
  secretServerKey?: string | undefined;
  superSecretAdminKey?: string | undefined;
  /** The project owner's session (PROTOCOL.md §6): its access token replaces the keys. */
  projectOwner?: TokenSource | undefined;
  extraRequestHeaders?: Record<string, string> | undefined;
  runtime: Runtime;
};

export type RequestOptions = {
  method?: string;
  /** Sent as JSON. */
  body?: unknown;
  /** Sent form-encoded instead (the OAuth token endpoint). */
  form?: Record<string, string>;
  accessType?: AccessType;
  session?: TokenSource | null | undefined;
  /** False for endpoints that read no x-stack headers (the OAuth token endpoint, PROTOCOL.md §1.3). */
  protocolHeaders?: boolean;
  /** Retry network failures although the method is not idempotent (a refresh grant can safely run twice). */
  idempotent?: boolean;
  /** Leave a 2xx answer's body unread and hand over the `Response` (streamed answers: server-sent events). */
  stream?: boolean;
};

export type ApiResponse<Body = unknown> = {
  status: number;
  headers: Headers;
  /** The parsed JSON (or the text); callers read it as the wire type of the route they called. */
  body: Body;
  /** The unread answer, with `stream: true`. */
  response?: Response;
};

/** Attempts per request (PROTOCOL.md §10) and the base of the exponential back-off. */
export const MAX_ATTEMPTS = 5;
export const BASE_RETRY_DELAY_MS = 1000;

const IDEMPOTENT_METHODS = new Set(["GET", "HEAD", "OPTIONS", "PUT", "DELETE"]);

/** A 45-character nonce that defeats caches between the SDK and the server. */
function randomNonce(): string {
  const alphabet = "0123456789abcdefghjkmnpqrstvwxyz";
  const bytes = new Uint8Array(45);
  crypto.getRandomValues(bytes);
  let nonce = "";
  for (const byte of bytes) nonce += alphabet[byte % 32];
  return nonce;
}

/** Seconds (or an HTTP date) from Retry-After, as milliseconds; null when absent or unreadable. */
function retryAfterMs(headers: Headers, now: number): number | null {
  const value = headers.get("retry-after");
  if (value === null || value.trim() === "") return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/**
 * Speaks the wire protocol: builds the headers of PROTOCOL.md §1.3, retries what is safe to retry (§10), undoes
 * the override-error-status trick (§1.6) and turns error answers into typed errors (§2).
 */
export class ApiClient {
  constructor(readonly config: ApiClientConfig) {}

  get apiUrl(): string {
    return `${this.config.baseUrl}/api/v1`;
  }

  /**
   * Sends one API call and returns its 2xx answer. Known errors are thrown as `KnownError`, other failures as
   * `HttpStatusError` or `ConnectionError`. An access token the server calls invalid is refreshed once; so is
   * the project owner's admin token.
   */
  async request(path: string, options: RequestOptions = {}): Promise<ApiResponse> {
    let retriedAccessToken = false;
    let retriedAdminToken = false;
    for (;;) {
      const tokens = options.session ? await options.session.getTokens() : null;
      const ownerTokens = this.config.projectOwner ? await this.config.projectOwner.getTokens() : null;
      try {
        return await this.requestOnce(
          path,
          options,
          tokens?.accessToken ?? null,
          tokens?.refreshToken ?? null,
          {
            adminAccessToken: ownerTokens?.accessToken ?? null,
          },
        );
      } catch (error) {
        if (
          !retriedAccessToken &&
          options.session &&
          tokens?.accessToken &&
          isKnownError(error, "INVALID_ACCESS_TOKEN")
        ) {
          retriedAccessToken = true;
          options.session.markAccessTokenExpired(tokens.accessToken);
          continue;
        }
        if (
          !retriedAdminToken &&
          this.config.projectOwner &&
          ownerTokens?.accessToken &&
          (isKnownError(error, "INVALID_ADMIN_ACCESS_TOKEN") || isKnownError(error, "API_KEY_NOT_FOUND"))
        ) {
          retriedAdminToken = true;
          this.config.projectOwner.markAccessTokenExpired(ownerTokens.accessToken);
          continue;
        }
        throw error;
      }
    }
  }

  private async requestOnce(
    path: string,
    options: RequestOptions,
    accessToken: string | null,
    refreshToken: string | null,
    extra: { adminAccessToken: string | null },
  ): Promise<ApiResponse> {
    const method = (options.method ?? "GET").toUpperCase();
    const url = this.urlFor(path);
    const retryNetworkErrors = options.idempotent ?? IDEMPOTENT_METHODS.has(method);
    const response = await this.fetchWithRetries(method, url, retryNetworkErrors, () => {
      const headers: Record<string, string> =
        options.protocolHeaders === false
          ? {}
          : this.protocolHeaders(options.accessType ?? this.config.appKind, accessToken, refreshToken, extra);
      let body: string | undefined;
      if (options.form !== undefined) {
        headers["content-type"] = "application/x-www-form-urlencoded;charset=UTF-8";
        headers.accept = "application/json";
        body = new URLSearchParams(options.form).toString();
      } else if (options.body !== undefined) {
        headers["content-type"] = "application/json";
        body = JSON.stringify(options.body);
      }
      const init: RequestInit = { method, headers, credentials: "omit", cache: "no-store" };
      if (body !== undefined) init.body = body;
      return init;
    });
    const status = actualStatus(response);
    if (options.stream && status >= 200 && status < 300) {
      return { status, headers: response.headers, body: null, response };
    }
    return this.interpret(method, path, response);
  }

  /** `/users/me` → `<baseUrl>/api/v1/users/me`, with a trailing slash of the path dropped (PROTOCOL.md §1.1). */
  urlFor(path: string): string {
    const queryStart = path.indexOf("?");
    const pathname = queryStart === -1 ? path : path.slice(0, queryStart);
    const query = queryStart === -1 ? "" : path.slice(queryStart);
    const trimmed = pathname.length > 1 ? pathname.replace(/\/+$/, "") : pathname;
    return `${this.apiUrl}${trimmed}${query}`;
  }

  protocolHeaders(
    accessType: AccessType,
    accessToken: string | null,
    refreshToken: string | null,
    extra: { adminAccessToken: string | null } = { adminAccessToken: null },
  ): Record<string, string> {
    const { config } = this;
    const headers: Record<string, string> = {
      "x-stack-override-error-status": "true",
      "x-stack-project-id": config.projectId,
      "x-stack-access-type": accessType,
      "x-stack-client-version": CLIENT_VERSION_HEADER,
      "x-stack-allow-anonymous-user": "true",
      "x-stack-random-nonce": randomNonce(),
      "ngrok-skip-browser-warning": "true",
    };
    if (accessToken) headers["x-stack-access-token"] = accessToken;
    if (refreshToken) headers["x-stack-refresh-token"] = refreshToken;
    if (config.publishableClientKey) headers["x-stack-publishable-client-key"] = config.publishableClientKey;
    if (config.appKind !== "client") headers["x-stack-secret-server-key"] = config.secretServerKey ?? "";
    if (config.appKind === "admin")
      headers["x-stack-super-secret-admin-key"] = config.superSecretAdminKey ?? "";
    if (extra.adminAccessToken) headers["x-stack-admin-access-token"] = extra.adminAccessToken;
    return { ...headers, ...config.extraRequestHeaders };
  }

  /**
   * Up to MAX_ATTEMPTS tries. 429 waits Retry-After (or backs off) and tries again, as does a 508 loop-detection
   * page. Network failures are retried only for idempotent methods: a POST that may have reached the server
   * must not run twice.
   */
  private async fetchWithRetries(
    method: string,
    url: string,
    retryNetworkErrors: boolean,
    buildInit: () => RequestInit,
  ): Promise<Response> {
    const { runtime } = this.config;
    for (let attempt = 0; ; attempt++) {
      const isLastAttempt = attempt === MAX_ATTEMPTS - 1;
      let response: Response;
      try {
        response = await runtime.fetch(url, buildInit());
      } catch (error) {
        if (!retryNetworkErrors || isLastAttempt) {
          throw await connectionError(runtime, this.config.baseUrl, method, url, error);
        }
        await runtime.sleep(this.backoffMs(attempt));
        continue;
      }
      const status = actualStatus(response);
      if (status === 429 && !isLastAttempt) {
        await response.body?.cancel().catch(() => {});
        await runtime.sleep(retryAfterMs(response.headers, runtime.now()) ?? this.backoffMs(attempt));
        continue;
      }
      if (status === 508 && !isLastAttempt) {
        const text = await response.clone().text();
        if (text.includes("INFINITE_LOOP_DETECTED")) {
          await runtime.sleep(this.backoffMs(attempt));
          continue;
        }
      }
      return response;
    }
  }

  /** Roughly 1 s, 2 s, 4 s, 8 s, each scaled by a random factor in [0.5, 1.5). */
  private backoffMs(attempt: number): number {
    return BASE_RETRY_DELAY_MS * 2 ** attempt * (0.5 + this.config.runtime.random());
  }

  private async interpret(method: string, path: string, response: Response): Promise<ApiResponse> {
    const status = actualStatus(response);
    const text = await response.text();
    const knownErrorCode = response.headers.get("x-stack-known-error");
    if (knownErrorCode !== null) {
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        throw new InvalidServerResponseError(
          `${method} ${path}: the known error ${knownErrorCode} came with a body that is not JSON.`,
        );
      }
      const code = (json as { code?: unknown } | null)?.code;
      if (code !== knownErrorCode) {
        throw new InvalidServerResponseError(
          `${method} ${path}: the x-stack-known-error header (${knownErrorCode}) does not match the body's code (${String(code)}).`,
        );
      }
      throw KnownError.fromJSON(json as KnownErrorJson);
    }
    if (status < 200 || status >= 300) throw new HttpStatusError(status, method, path, text);
    const isJson = (response.headers.get("content-type") ?? "").includes("application/json");
    let body: unknown = text;
    if (isJson && text !== "") {
      try {
        body = JSON.parse(text);
      } catch {
        throw new InvalidServerResponseError(
          `${method} ${path}: the response claims JSON but does not parse.`,
        );
      }
    }
    return { status, headers: response.headers, body };
  }
}

/** The status the server meant: 4xx answers come back as 200 with x-stack-actual-status (PROTOCOL.md §1.6). */
function actualStatus(response: Response): number {
  const header = response.headers.get("x-stack-actual-status");
  const parsed = header === null ? Number.NaN : Number(header);
  return Number.isInteger(parsed) && parsed >= 100 && parsed <= 599 ? parsed : response.status;
}
