import type { KnownError, WireClientProject, WireInvitationDetails } from "@gatehouse/shared";
import type { Watchable } from "../cache/watch.ts";
import type { AccessType, ApiResponse } from "../http/api-client.ts";
import { isBrowser } from "../http/runtime.ts";
import { type CurrentUser, currentUserFromJson } from "../objects/current-user.ts";
import {
  type CustomerInvoicesList,
  type CustomerListOptions,
  type CustomerOptions,
  type CustomerProductsList,
  type CustomerRef,
  cancelSubscription,
  customerMethods,
  customerOf,
  type Item,
} from "../objects/customers.ts";
import { type Project, projectFromJson } from "../objects/projects.ts";
import type { Scope } from "../objects/scope.ts";
import type { Session } from "../session/session.ts";
import type { Result } from "../utils/result.ts";
import { SDK_VERSION } from "../version.ts";
import { type Auth, type AuthJson, authFunctions } from "./auth-tokens.ts";
import type { CliLoginOptions } from "./cli-login.ts";
import { AppContext } from "./context.ts";
import type { AdminAppOptions, ClientAppOptions, TokenStoreInit } from "./options.ts";
import type { PurchaseChoice, PurchaseOffer } from "./purchase-codes.ts";
import { currentUrl, withReturnTo } from "./redirect.ts";
import { type ClientAppJson, findUniqueApp, randomIdentifier, registerUniqueApp } from "./serialize.ts";
import * as signIn from "./sign-in.ts";
import type { HandlerUrlName, HandlerUrls } from "./urls.ts";
import { type GetUserOptions, UserReader } from "./user-reads.ts";

/** Where the app keeps what only the SDK's own layers (React, CLI) should touch. */
export const gatehouseInternals = Symbol.for("gatehouse.app-internals");

type TokenStoreOption = { tokenStore?: TokenStoreInit };
type RedirectToOptions = { replace?: boolean; noRedirectBack?: boolean };

/** The configuration two apps under one unique identifier must share (see serialize.ts). */
function sharedConfiguration(ctx: AppContext, options: ClientAppOptions) {
  return {
    projectId: ctx.projectId,
    baseUrl: ctx.baseUrl,
    publishableClientKey: ctx.api.config.publishableClientKey ?? null,
    tokenStore: typeof options.tokenStore === "string" ? options.tokenStore : null,
    redirectMethod: typeof ctx.redirectMethod === "string" ? ctx.redirectMethod : "custom",
    urls: options.urls ?? {},
    extraRequestHeaders: options.extraRequestHeaders ?? {},
    oauthScopesOnSignIn: options.oauthScopesOnSignIn ?? {},
    noAutomaticPrefetch: options.noAutomaticPrefetch ?? false,
  };
}

/**
 * The admin app of owned projects (the admin app extends this one, so only a lazy import() can reach it from here):
 * loaded when the `internal` project's user first lists or creates projects.
 */
const loadOwnedProjectAdminApp = async () => (await import("./admin-app.ts")).ownedProjectAdminApp;

/**
 * The SDK for browsers and for servers acting on behalf of one user: sign-in in all its forms, the current user,
 * the project, redirects to the handler pages. `StackClientApp` is the same class.
 */
export class GatehouseClientApp {
  readonly version = SDK_VERSION;
  /** @internal */
  protected readonly ctx: AppContext;
  private readonly userReader: UserReader<CurrentUser>;
  private uniqueIdentifier: string | undefined;

  constructor(options: ClientAppOptions) {
    const inherited = options.inheritsFrom?.options ?? {};
    const merged: AdminAppOptions = { ...inherited, ...options };
    delete merged.inheritsFrom;
    this.ctx = new AppContext(this.accessKind(), merged, loadOwnedProjectAdminApp);
    this.userReader = this.createUserReader() as UserReader<CurrentUser>;
    this.uniqueIdentifier = merged.uniqueIdentifier;
    if (this.uniqueIdentifier !== undefined) {
      registerUniqueApp(this.uniqueIdentifier, sharedConfiguration(this.ctx, merged), this);
    }
    if (!merged.noAutomaticPrefetch && isBrowser()) {
      // Warm the project (and the user, if any) so that the first render has them.
      this.getProject().catch(() => {});
      if (this.ctx.appSession()?.hasTokens()) this.getUser().catch(() => {});
    }
  }

  /** The options the app was made with (after inheritsFrom). */
  get options(): AdminAppOptions {
    return this.ctx.options;
  }

  get projectId(): string {
    return this.ctx.projectId;
  }

  get urls(): Readonly<HandlerUrls> {
    return this.ctx.urls;
  }

  protected accessKind(): AccessType {
    return "client";
  }

  protected createUserReader(): UserReader<CurrentUser> {
    return new UserReader(
      this.ctx,
      (session, json) => currentUserFromJson(this.ctx, session, json),
      (url) => this.ctx.redirector.redirectTo(url, { replace: true }),
    );
  }

  // --- Sign-in and sign-up ---

  signUpWithCredential(options: Parameters<typeof signIn.signUpWithCredential>[1]) {
    return signIn.signUpWithCredential(this.ctx, options);
  }

  signInWithCredential(options: { email: string; password: string; noRedirect?: boolean }) {
    return signIn.signInWithCredential(this.ctx, options);
  }

  /** Sends the sign-in code and magic link; `nonce` is the part of the code the email does not show. */
  sendMagicLinkEmail(email: string, options?: { callbackUrl?: string }) {
    return signIn.sendMagicLinkEmail(this.ctx, email, options);
  }

  signInWithMagicLink(code: string, options?: { noRedirect?: boolean }) {
    return signIn.signInWithMagicLink(this.ctx, code, options);
  }

  signInWithMfa(totp: string, code: string, options?: { noRedirect?: boolean }) {
    return signIn.signInWithMfa(this.ctx, totp, code, options);
  }

  // OAuth, passkeys and CLI login are loaded on first use, as the purchase page's calls below: a browser app that
  // signs in with a password does not carry them, and one that does fetches them as a chunk of their own.

  async signInWithOAuth(provider: string, options: { returnTo?: string } = {}): Promise<void> {
    const { redirectToOAuth } = await import("./oauth.ts");
    return redirectToOAuth(this.ctx, this.ctx.appSession(), provider, {
      type: "authenticate",
      returnTo: options.returnTo,
    });
  }

  /** On the OAuth callback page; false when the address has no code and state. */
  async callOAuthCallback(): Promise<boolean> {
    return (await import("./oauth.ts")).callOAuthCallback(this.ctx);
  }

  async signInWithPasskey(): Promise<Result<undefined, KnownError>> {
    return (await import("./passkeys.ts")).signInWithPasskey(this.ctx);
  }

  sendForgotPasswordEmail(email: string, options?: { callbackUrl?: string }) {
    return signIn.sendForgotPasswordEmail(this.ctx, email, options);
  }

  verifyPasswordResetCode(code: string) {
    return signIn.codeCall(this.ctx, "/auth/password/reset/check-code", { code });
  }

  resetPassword(options: { code: string; password: string }) {
    return signIn.codeCall(this.ctx, "/auth/password/reset", options, {
      extra: ["PASSWORD_REQUIREMENTS_NOT_MET"],
    });
  }

  async verifyEmail(code: string) {
    const result = await signIn.codeCall(this.ctx, "/contact-channels/verify", { code });
    this.ctx.invalidateUserData();
    return result;
  }

  verifyTeamInvitationCode(code: string) {
    return signIn.codeCall(
      this.ctx,
      "/team-invitations/accept/check-code",
      { code },
      this.invitationOptions(),
    );
  }

  async acceptTeamInvitation(code: string) {
    const result = await signIn.codeCall(
      this.ctx,
      "/team-invitations/accept",
      { code },
      this.invitationOptions(),
    );
    this.ctx.invalidateUserData();
    return result;
  }

  getTeamInvitationDetails(code: string) {
    return signIn.codeCall<{ teamDisplayName: string }, WireInvitationDetails>(
      this.ctx,
      "/team-invitations/accept/details",
      { code },
      {
        ...this.invitationOptions(),
        map: (json: WireInvitationDetails) => ({ teamDisplayName: json.team_display_name }),
      },
    );
  }

  private invitationOptions() {
    return { session: this.ctx.persistentSession(), extra: ["TEAM_INVITATION_EMAIL_MISMATCH" as const] };
  }

  // --- The purchase page (a purchase URL's code is the credential; no session is sent). Loaded on first use:
  // only that page needs them, and apps bundle them as a chunk of their own. ---

  async validatePurchaseCode(
    fullCode: string,
    options?: { returnUrl?: string | null },
  ): Promise<PurchaseOffer> {
    return (await import("./purchase-codes.ts")).validatePurchaseCode(this.ctx, fullCode, options);
  }

  async completeTestModePurchase(choice: PurchaseChoice): Promise<void> {
    return (await import("./purchase-codes.ts")).completeTestModePurchase(this.ctx, choice);
  }

  async createPurchaseCheckoutUrl(choice: PurchaseChoice & { returnUrl?: string | null }): Promise<string> {
    return (await import("./purchase-codes.ts")).createPurchaseCheckoutUrl(this.ctx, choice);
  }

  /** Command-line login: shows a link, then polls until the user confirms it in a browser. */
  async promptCliLogin(options: CliLoginOptions): Promise<Result<string, KnownError>> {
    return (await import("./cli-login.ts")).promptCliLogin(this.ctx, options);
  }

  /** On the CLI confirmation page: gives the CLI login `loginCode` the signed-in user's session. */
  async completeCliLogin(loginCode: string): Promise<void> {
    return (await import("./cli-login.ts")).completeCliLogin(this.ctx, loginCode);
  }

  /** On the CLI confirmation page, signed out: whether the CLI holds an anonymous session to take over. */
  async cliLoginSessionState(loginCode: string): Promise<"anonymous" | "none"> {
    return (await import("./cli-login.ts")).cliLoginSessionState(this.ctx, loginCode);
  }

  /** Takes over the CLI's anonymous session here, so that signing up upgrades that user in place. */
  async claimCliAnonymousSession(loginCode: string): Promise<void> {
    return (await import("./cli-login.ts")).claimCliAnonymousSession(this.ctx, loginCode);
  }

  // --- The current user and the project ---

  getUser(options: GetUserOptions & { or: "redirect" | "throw" | "anonymous" }): Promise<CurrentUser>;
  getUser(options?: GetUserOptions): Promise<CurrentUser | null>;
  getUser(options: GetUserOptions = {}): Promise<CurrentUser | null> {
    return this.userReader.getUser(options);
  }

  /** The signed-in user for a UI to follow (anonymous users show as null unless included). */
  watchUser(options?: Parameters<UserReader<CurrentUser>["watch"]>[0]): Watchable<CurrentUser | null> {
    return this.userReader.watch(options);
  }

  getProject(): Promise<Project> {
    return this.projectCache().get([]);
  }

  watchProject(): Watchable<Project> {
    const cache = this.projectCache();
    return {
      subscribe: (listener) => cache.subscribe([], listener),
      getSnapshot: () => cache.snapshot([]),
      get: () => cache.get([]),
    };
  }

  private projectCache() {
    return this.ctx.cache("project", async () =>
      projectFromJson(await this.ctx.call<WireClientProject>("/projects/current", { accessType: "client" })),
    );
  }

  // --- Payments (objects/customers.ts): a client acts on its own user and on teams where it is team_admin ---

  /** Whom payments calls act as: the signed-in user of the app's store (a server app: the server key). */
  protected paymentsScope(): Scope {
    return { ctx: this.ctx, accessType: "client", session: this.ctx.session() };
  }

  getItem(options: CustomerOptions & { itemId: string }): Promise<Item> {
    return customerMethods(this.paymentsScope(), customerOf(options)).getItem(options.itemId);
  }

  listProducts(options: CustomerOptions & CustomerListOptions): Promise<CustomerProductsList> {
    return customerMethods(this.paymentsScope(), customerOf(options)).listProducts(options);
  }

  listInvoices(
    options: ({ userId: string } | { teamId: string }) & CustomerListOptions,
  ): Promise<CustomerInvoicesList> {
    return customerMethods(this.paymentsScope(), customerOf(options)).listInvoices(options);
  }

  /** Ends the signed-in user's (or `teamId`'s) subscription to a product at the end of its period. */
  async cancelSubscription(options: {
    productId: string;
    subscriptionId?: string;
    teamId?: string;
  }): Promise<void> {
    const customer: CustomerRef =
      options.teamId !== undefined
        ? { type: "team", id: options.teamId }
        : { type: "user", id: (await this.getUser({ or: "throw", includeRestricted: true })).id };
    await cancelSubscription(this.paymentsScope(), customer, options);
  }

  // --- Tokens of the app's session (AuthLike) ---

  private auth(options: TokenStoreOption = {}): Auth {
    return authFunctions(this.ctx, this.ctx.session(options.tokenStore));
  }

  signOut(options: { redirectUrl?: URL | string } & TokenStoreOption = {}): Promise<void> {
    return this.auth(options).signOut(options);
  }

  getAccessToken(options?: TokenStoreOption): Promise<string | null> {
    return this.auth(options).getAccessToken();
  }

  getRefreshToken(options?: TokenStoreOption): Promise<string | null> {
    return this.auth(options).getRefreshToken();
  }

  getAuthHeaders(options?: TokenStoreOption): Promise<{ "x-stack-auth": string }> {
    return this.auth(options).getAuthHeaders();
  }

  getAuthJson(options?: TokenStoreOption): Promise<AuthJson> {
    return this.auth(options).getAuthJson();
  }

  getAuthorizationHeader(options?: TokenStoreOption): Promise<string | null> {
    return this.auth(options).getAuthorizationHeader();
  }

  /** Registers a passkey for the signed-in user of the app's store. */
  async registerPasskey(options?: { hostname?: string }): Promise<Result<undefined, KnownError>> {
    const { registerPasskey } = await import("./passkeys.ts");
    return registerPasskey(this.ctx, this.ctx.persistentSession(), options);
  }

  // --- Redirects to the handler pages ---

  private async redirectToHandler(name: HandlerUrlName, options: RedirectToOptions = {}): Promise<void> {
    let url = this.ctx.urls[name];
    if (name === "afterSignIn" || name === "afterSignUp") {
      url = currentUrl()?.searchParams.get("after_auth_return_to") ?? url;
    } else if ((name === "signIn" || name === "signUp") && !options.noRedirectBack) {
      url = withReturnTo(url);
    }
    await this.ctx.redirector.redirectTo(url, { replace: options.replace ?? false });
  }

  redirectToSignIn = (options?: RedirectToOptions) => this.redirectToHandler("signIn", options);
  redirectToSignUp = (options?: RedirectToOptions) => this.redirectToHandler("signUp", options);
  redirectToSignOut = (options?: RedirectToOptions) => this.redirectToHandler("signOut", options);
  redirectToEmailVerification = (options?: RedirectToOptions) =>
    this.redirectToHandler("emailVerification", options);
  redirectToPasswordReset = (options?: RedirectToOptions) => this.redirectToHandler("passwordReset", options);
  redirectToForgotPassword = (options?: RedirectToOptions) =>
    this.redirectToHandler("forgotPassword", options);
  redirectToHome = (options?: RedirectToOptions) => this.redirectToHandler("home", options);
  redirectToOAuthCallback = (options?: RedirectToOptions) => this.redirectToHandler("oauthCallback", options);
  redirectToMagicLinkCallback = (options?: RedirectToOptions) =>
    this.redirectToHandler("magicLinkCallback", options);
  redirectToAfterSignIn = (options?: RedirectToOptions) => this.redirectToHandler("afterSignIn", options);
  redirectToAfterSignUp = (options?: RedirectToOptions) => this.redirectToHandler("afterSignUp", options);
  redirectToAfterSignOut = (options?: RedirectToOptions) => this.redirectToHandler("afterSignOut", options);
  redirectToAccountSettings = (options?: RedirectToOptions) =>
    this.redirectToHandler("accountSettings", options);
  redirectToError = (options?: RedirectToOptions) => this.redirectToHandler("error", options);
  redirectToTeamInvitation = (options?: RedirectToOptions) =>
    this.redirectToHandler("teamInvitation", options);
  redirectToMfa = (options?: RedirectToOptions) => this.redirectToHandler("mfa", options);
  redirectToCliAuthConfirm = (options?: RedirectToOptions) =>
    this.redirectToHandler("cliAuthConfirm", options);

  // --- For the SDK's own layers ---

  get [gatehouseInternals]() {
    const { ctx } = this;
    return {
      context: ctx,
      toClientJson: (): ClientAppJson => this.toClientJson(),
      getConstructorOptions: () => ({ ...ctx.options }),
      sendRequest: <Body = unknown>(
        path: string,
        init: { method?: string; body?: unknown },
        accessType?: AccessType,
      ) =>
        ctx.api.request(path, {
          ...init,
          accessType: accessType ?? "client",
          session: ctx.appSession(),
        }) as Promise<ApiResponse<Body>>,
      signInWithTokens: async (tokens: { accessToken: string; refreshToken: string }) => {
        ctx.persistentSession().setTokens(tokens);
        ctx.invalidateUserData();
      },
      redirectToUrl: (url: string | URL, options?: { replace?: boolean }) =>
        ctx.redirector.redirectTo(url, options),
      getRedirectMethod: () => ctx.redirectMethod,
      appSession: (): Session | null => ctx.appSession(),
    };
  }

  /**
   * What a server renders into the page to build the same client app in the browser. Needs a publishable
   * client key and a redirect method that is a string (a function cannot travel).
   */
  protected toClientJson(): ClientAppJson {
    const { ctx } = this;
    const publishableClientKey = ctx.api.config.publishableClientKey;
    if (!publishableClientKey) {
      throw new Error("Cannot serialize this app for the client: it has no publishableClientKey.");
    }
    if (typeof ctx.redirectMethod !== "string") {
      throw new Error('Cannot serialize this app for the client: redirectMethod must be "window" or "none".');
    }
    const tokenStore = ctx.options.tokenStore;
    if (tokenStore !== "memory" && tokenStore !== "cookie") {
      throw new Error('Cannot serialize this app for the client: tokenStore must be "memory" or "cookie".');
    }
    this.uniqueIdentifier ??= randomIdentifier();
    registerUniqueApp(this.uniqueIdentifier, sharedConfiguration(ctx, ctx.options), this);
    return {
      projectId: ctx.projectId,
      baseUrl: ctx.baseUrl,
      publishableClientKey,
      tokenStore,
      redirectMethod: ctx.redirectMethod,
      urls: ctx.options.urls ?? {},
      ...(ctx.options.extraRequestHeaders ? { extraRequestHeaders: ctx.options.extraRequestHeaders } : {}),
      ...(ctx.options.oauthScopesOnSignIn ? { oauthScopesOnSignIn: ctx.options.oauthScopesOnSignIn } : {}),
      ...(ctx.options.noAutomaticPrefetch ? { noAutomaticPrefetch: true } : {}),
      uniqueIdentifier: this.uniqueIdentifier,
    };
  }

  /** Builds (or finds) the client app described by `toClientJson`'s output. */
  static fromClientJson(json: ClientAppJson): GatehouseClientApp {
    const existing = findUniqueApp(json.uniqueIdentifier);
    const app = new GatehouseClientApp({ ...json, ...(existing ? { uniqueIdentifier: undefined } : {}) });
    if (!existing) return app;
    // Same identifier: the configuration must match, and then both sides are the one app already built.
    return registerUniqueApp(json.uniqueIdentifier, sharedConfiguration(app.ctx, json), app);
  }
}
