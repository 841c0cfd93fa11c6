import { AsyncCache } from "../cache/async-cache.ts";
import { type AccessType, ApiClient, type TokenSource } from "../http/api-client.ts";
import { createRuntime, type Runtime } from "../http/runtime.ts";
import { CookieTokenStore } from "../session/cookie-store.ts";
import { createRefresher } from "../session/refresh.ts";
import { Session } from "../session/session.ts";
import {
  InMemoryTokenStore,
  isRequestLike,
  type TokenStore,
  tokensFromRequest,
} from "../session/token-store.ts";
import {
  type AdminAppOptions,
  defaultPublishableClientKey,
  defaultSecretServerKey,
  defaultSuperSecretAdminKey,
  type RedirectMethod,
  resolveBaseUrl,
  resolveProjectId,
  resolveRedirectMethod,
  type TokenStoreInit,
} from "./options.ts";
import { Redirector } from "./redirect.ts";
import { type HandlerUrls, resolveHandlerUrls } from "./urls.ts";

export const NO_PERSISTENT_STORE_MESSAGE =
  'This call needs a persistent token store: create the app with tokenStore "memory" or "cookie" (a null, ' +
  "fixed or request-based store cannot keep the tokens of a new sign-in).";

/** Caches of project-level reads, which user writes leave alone. */
const PROJECT_CACHES = new Set(["project", "adminProject", "ownedProjects", "internalApiKeys"]);

/** Wraps `projectOwnerSession` in the shape the request layer takes. */
function ownerTokenSource(owner: AdminAppOptions["projectOwnerSession"]): TokenSource | undefined {
  if (owner === undefined) return undefined;
  if (typeof owner === "function") {
    return {
      getTokens: async () => ({ accessToken: await owner(), refreshToken: null }),
      // The function is asked again on the retry; it is expected to hand out a fresh token.
      markAccessTokenExpired: () => {},
    };
  }
  return owner;
}

/**
 * Makes the admin app of one project the signed-in owner's teams own (PROTOCOL.md §6), acting as that owner, with
 * the context it runs in: `ownedProjectAdminApp` of apps/admin-app.ts.
 */
export type OwnedProjectAdminAppFactory = (
  parent: AppContext,
  projectId: string,
  ownerSession: Session,
) => { app: unknown; ctx: AppContext };

/**
 * What every app method needs: the resolved options, the request layer, the sessions and the redirects. Apps of
 * all three kinds hold one; feature modules take it instead of the app, which keeps them small and testable.
 */
export class AppContext {
  readonly projectId: string;
  readonly baseUrl: string;
  readonly runtime: Runtime;
  readonly api: ApiClient;
  readonly urls: HandlerUrls;
  readonly redirectMethod: RedirectMethod;
  readonly redirector: Redirector;
  readonly tokenStoreInit: TokenStoreInit;
  private readonly refresher: (refreshToken: string) => Promise<string | null>;
  private defaultSession: Session | null | undefined;

  constructor(
    readonly kind: AccessType,
    readonly options: AdminAppOptions,
    /**
     * The admin app module's factory of owned projects' apps, loaded on first use: a browser app that never lists
     * owned projects does not carry the admin app (the client app hands in an `import()` of it).
     */
    readonly loadOwnedProjectAdminApp: () => Promise<OwnedProjectAdminAppFactory>,
  ) {
    this.projectId = resolveProjectId(options.projectId);
    this.baseUrl = resolveBaseUrl(options.baseUrl);
    this.runtime = createRuntime(options.runtime);
    this.urls = resolveHandlerUrls(options.urls);
    this.redirectMethod = resolveRedirectMethod(options.redirectMethod);
    this.redirector = new Redirector(this.redirectMethod, this.runtime);
    // Apps owned by a project owner's session keep no end-user tokens of their own.
    this.tokenStoreInit =
      options.tokenStore === undefined && options.projectOwnerSession !== undefined
        ? null
        : (options.tokenStore ?? null);
    this.api = new ApiClient({
      projectId: this.projectId,
      baseUrl: this.baseUrl,
      appKind: kind,
      publishableClientKey: options.publishableClientKey ?? defaultPublishableClientKey(),
      secretServerKey: kind === "client" ? undefined : (options.secretServerKey ?? defaultSecretServerKey()),
      superSecretAdminKey:
        kind === "admin" ? (options.superSecretAdminKey ?? defaultSuperSecretAdminKey()) : undefined,
      projectOwner: ownerTokenSource(options.projectOwnerSession),
      extraRequestHeaders: options.extraRequestHeaders,
      runtime: this.runtime,
    });
    this.refresher = createRefresher(this.api);
  }

  /** A session over `store`, refreshing against this app's project. */
  sessionOver(store: TokenStore): Session {
    return new Session(store, this.refresher, this.runtime.now);
  }

  /** The session of the app's own token store; null when the app has none (`tokenStore: null`). */
  appSession(): Session | null {
    if (this.defaultSession === undefined) {
      const store = this.storeFor(this.tokenStoreInit);
      this.defaultSession = store === null ? null : this.sessionOver(store);
    }
    return this.defaultSession;
  }

  /**
   * The session for one call: the app's own, or one over the call's `tokenStore` override. A fixed or
   * request-based override gets a fresh session each time, so nothing leaks between calls.
   */
  session(override?: TokenStoreInit): Session {
    if (override !== undefined && override !== this.tokenStoreInit) {
      const store = this.storeFor(override);
      if (store === null)
        throw new Error("tokenStore cannot be null here: pass a token store for this call.");
      return store.persistent ? this.sharedSession(store) : this.sessionOver(store);
    }
    const session = this.appSession();
    if (session === null) {
      throw new Error(
        "This app was created with tokenStore null, so pass a tokenStore (e.g. the incoming request) to this call.",
      );
    }
    return session;
  }

  /** The app's session if it may hold the tokens of a sign-in; throws otherwise. */
  persistentSession(): Session {
    const session = this.appSession();
    if (session === null || !session.store.persistent) throw new Error(NO_PERSISTENT_STORE_MESSAGE);
    return session;
  }

  /** Sends one call and returns the JSON body. */
  async call<T = unknown>(
    path: string,
    options: { method?: string; body?: unknown; accessType?: AccessType; session?: TokenSource | null } = {},
  ): Promise<T> {
    const response = await this.api.request(path, options);
    return response.body as T;
  }

  /** Sends one call and returns its 2xx answer unread, for a streamed body; errors are thrown as by `call`. */
  async callStream(
    path: string,
    options: { method?: string; body?: unknown; accessType?: AccessType; session?: TokenSource | null } = {},
  ): Promise<Response> {
    const response = await this.api.request(path, { ...options, stream: true });
    return response.response!;
  }

  private readonly sharedSessions = new Map<string, Session>();
  private readonly caches = new Map<string, { invalidate(): void }>();

  /** The app's cache called `name`, created with `fetcher` on first use. */
  cache<K extends readonly unknown[], V>(name: string, fetcher: (...key: K) => Promise<V>): AsyncCache<K, V> {
    // Each name is only ever used with one fetcher, so the cache under it has that fetcher's types.
    let cache = this.caches.get(name) as AsyncCache<K, V> | undefined;
    if (!cache) {
      cache = new AsyncCache(fetcher, this.runtime);
      this.caches.set(name, cache);
    }
    return cache;
  }

  /** Marks the named caches out of date. */
  invalidate(...names: string[]): void {
    for (const name of names) this.caches.get(name)?.invalidate();
  }

  /** After a write that may change what users, teams, channels or sessions look like: all but project reads. */
  invalidateUserData(): void {
    for (const [name, cache] of this.caches) if (!PROJECT_CACHES.has(name)) cache.invalidate();
  }

  private sharedSession(store: TokenStore): Session {
    const key = store.kind;
    let session = this.sharedSessions.get(key);
    if (!session) {
      session = this.sessionOver(store);
      this.sharedSessions.set(key, session);
    }
    return session;
  }

  private storeFor(init: TokenStoreInit): TokenStore | null {
    if (init === null) return null;
    if (init === "memory") return new InMemoryTokenStore("memory");
    if (init === "cookie") return new CookieTokenStore(this.projectId, this.runtime);
    if (
      typeof init === "object" &&
      ("accessToken" in init || "refreshToken" in init) &&
      !isRequestLike(init)
    ) {
      const fixed = init as { accessToken?: string | null; refreshToken?: string | null };
      return new InMemoryTokenStore("fixed", {
        accessToken: fixed.accessToken ?? null,
        refreshToken: fixed.refreshToken ?? null,
      });
    }
    if (isRequestLike(init))
      return new InMemoryTokenStore("request", tokensFromRequest(init, this.projectId));
    throw new TypeError(`Unknown tokenStore ${JSON.stringify(init)}.`);
  }
}
