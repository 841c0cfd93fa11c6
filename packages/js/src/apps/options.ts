import { isBrowser, type Runtime } from "../http/runtime.ts";
import type { Session } from "../session/session.ts";
import type { RequestLike } from "../session/token-store.ts";
import type { HandlerUrlOptions } from "./urls.ts";

/**
 * How the app navigates: `"window"` (location.assign / replace), `"none"` (never; the default outside browsers),
 * or a router's navigate function (`navigate`, or `useNavigate` for the React layer).
 */
export type RedirectMethod =
  | "window"
  | "none"
  | { useNavigate?: () => (to: string) => void; navigate?: (to: string) => void };

/** The `tokenStore` option; see src/session/token-store.ts. `null` means every call passes its own. */
export type TokenStoreInit =
  | "memory"
  | "cookie"
  | null
  | { accessToken: string | null; refreshToken: string | null }
  | RequestLike;

export type ClientAppOptions = {
  /** A UUID or `internal`; defaults to NEXT_PUBLIC_STACK_PROJECT_ID / STACK_PROJECT_ID. */
  projectId?: string;
  /** The server's URL, or one for browsers and one for servers; defaults to the env or http://localhost:8102. */
  baseUrl?: string | { browser: string; server: string };
  publishableClientKey?: string;
  extraRequestHeaders?: Record<string, string>;
  urls?: HandlerUrlOptions;
  tokenStore?: TokenStoreInit;
  redirectMethod?: RedirectMethod;
  /** Skip the background fetch of the project that browsers start when the app is created. */
  noAutomaticPrefetch?: boolean;
  /** Provider scopes asked for when linking an account, by provider id. */
  oauthScopesOnSignIn?: Partial<Record<string, string[]>>;
  /** Take every option not given here from another app. */
  inheritsFrom?: { readonly options: ResolvedOptionsLike };
  /** Identifies the app when it is serialised from server to client (see `toClientJson`). */
  uniqueIdentifier?: string;
  /** Network, clock and timers; tests replace them. */
  runtime?: Partial<Runtime>;
};

export type ServerAppOptions = ClientAppOptions & {
  /** Defaults to STACK_SECRET_SERVER_KEY. */
  secretServerKey?: string;
};

export type AdminAppOptions = ServerAppOptions & {
  /** Defaults to STACK_SUPER_SECRET_ADMIN_KEY. */
  superSecretAdminKey?: string;
  /**
   * The session of a user of the `internal` project who manages this project (e.g. `user._internalSession`), or a
   * function giving their access token. It replaces the keys (PROTOCOL.md §6).
   */
  projectOwnerSession?: Session | (() => Promise<string | null>);
};

export type ResolvedOptionsLike = AdminAppOptions;

function env(...names: string[]): string | undefined {
  if (typeof process === "undefined" || !process.env) return undefined;
  for (const name of names) {
    const value = process.env[name];
    if (value) return value;
  }
  return undefined;
}

const PROJECT_ID_PATTERN = /^(internal|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;

export function resolveProjectId(given: string | undefined): string {
  const projectId = given ?? env("NEXT_PUBLIC_STACK_PROJECT_ID", "STACK_PROJECT_ID");
  if (!projectId) {
    throw new Error(
      "No project ID: pass projectId, or set NEXT_PUBLIC_STACK_PROJECT_ID or STACK_PROJECT_ID.",
    );
  }
  if (!PROJECT_ID_PATTERN.test(projectId)) {
    throw new Error(`Invalid project ID ${JSON.stringify(projectId)}: it must be a UUID or "internal".`);
  }
  return projectId;
}

export function resolveBaseUrl(given: ClientAppOptions["baseUrl"]): string {
  const chosen =
    typeof given === "object" && given !== null ? (isBrowser() ? given.browser : given.server) : given;
  const url =
    chosen ??
    env("NEXT_PUBLIC_STACK_API_URL", "STACK_API_URL", "NEXT_PUBLIC_STACK_URL", "GATEHOUSE_BASE_URL") ??
    "http://localhost:8102";
  return url.replace(/\/+$/, "");
}

export function resolveRedirectMethod(given: RedirectMethod | undefined): RedirectMethod {
  return given ?? (isBrowser() ? "window" : "none");
}

export function defaultPublishableClientKey(): string | undefined {
  return env("NEXT_PUBLIC_STACK_PUBLISHABLE_CLIENT_KEY", "STACK_PUBLISHABLE_CLIENT_KEY");
}

export function defaultSecretServerKey(): string | undefined {
  return env("STACK_SECRET_SERVER_KEY");
}

export function defaultSuperSecretAdminKey(): string | undefined {
  return env("STACK_SUPER_SECRET_ADMIN_KEY");
}
