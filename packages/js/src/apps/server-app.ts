import {
  isKnownError,
  type WireList,
  type WireServerUser,
  type WireUserApiKey,
  type WireUserPage,
} from "@gatehouse/shared";
import type { AccessType } from "../http/api-client.ts";
import type { CurrentServerUser } from "../objects/current-user.ts";
import {
  type CustomerOptions,
  customerOf,
  type ProductChoice,
  type ServerItem,
  serverCustomerMethods,
} from "../objects/customers.ts";
import { call, type Scope, seg, withQuery } from "../objects/scope.ts";
import {
  createUserSession,
  currentServerUserFromJson,
  type ServerUser,
  serverUserFromJson,
  userCreateToWire,
} from "../objects/server-user.ts";
import {
  createTeam,
  type ServerTeam,
  type ServerTeamCreateOptions,
  teamFromJson,
  type WireTeam,
} from "../objects/teams.ts";
import type { ServerUserCreateOptions } from "../objects/users.ts";
import { emailCapacityMethods } from "./admin-email-drafts.ts";
import { GatehouseClientApp } from "./client-app.ts";
import { emailMethods } from "./emails.ts";
import type { ServerAppOptions } from "./options.ts";
import { type GetUserOptions, UserReader } from "./user-reads.ts";

export type ListUsersOptions = {
  cursor?: string;
  limit?: number;
  orderBy?: "signedUpAt";
  desc?: boolean;
  /** Free text over display name and email, and an exact id match. */
  query?: string;
  includeAnonymous?: boolean;
  /** Also list restricted users (e.g. email not verified when required, or restricted by an admin). */
  includeRestricted?: boolean;
  teamId?: string;
};

/** A page of a list, with the cursor of the next page (null on the last one). */
export type Paginated<T> = T[] & { nextCursor: string | null };

/**
 * The SDK for your backend, with the secret server key: everything the client app does, plus any user's data,
 * user and session creation, teams and email. `StackServerApp` is the same class.
 */
export class GatehouseServerApp extends GatehouseClientApp {
  constructor(options: ServerAppOptions) {
    super(options);
  }

  protected override accessKind(): AccessType {
    return "server";
  }

  protected override createUserReader(): UserReader<CurrentServerUser> {
    return new UserReader(
      this.ctx,
      // A server app reads /users/me with its server key: the server read.
      (session, json) => currentServerUserFromJson(this.ctx, session, json as WireServerUser),
      (url) => this.ctx.redirector.redirectTo(url, { replace: true }),
    );
  }

  private get scope(): Scope {
    return { ctx: this.ctx, accessType: "server", session: null };
  }

  /**
   * `getUser(id)`: any user of the project, or null. `getUser({apiKey})`: the owner of a user API key.
   * `getUser(options)`: the signed-in user of the app's store or of `options.tokenStore` (e.g. the request).
   */
  override getUser(id: string): Promise<ServerUser | null>;
  override getUser(options: { apiKey: string }): Promise<ServerUser | null>;
  override getUser(
    options: GetUserOptions & { or: "redirect" | "throw" | "anonymous" },
  ): Promise<CurrentServerUser>;
  override getUser(options?: GetUserOptions): Promise<CurrentServerUser | null>;
  override async getUser(
    arg?: string | GetUserOptions | { apiKey: string },
  ): Promise<CurrentServerUser | ServerUser | null> {
    if (typeof arg === "string") return this.getUserById(arg);
    if (arg && "apiKey" in arg) {
      try {
        const key = await call<WireUserApiKey>(this.scope, "/user-api-keys/check", {
          method: "POST",
          body: { api_key: arg.apiKey },
        });
        return key.user_id ? this.getUserById(key.user_id) : null;
      } catch (error) {
        if (isKnownError(error, "API_KEY_NOT_VALID")) return null;
        throw error;
      }
    }
    return (await super.getUser(arg as GetUserOptions)) as CurrentServerUser | null;
  }

  /** @deprecated Use getUser(). */
  getServerUser(): Promise<CurrentServerUser | null> {
    return this.getUser();
  }

  private async getUserById(userId: string): Promise<ServerUser | null> {
    try {
      return serverUserFromJson(this.ctx, await call<WireServerUser>(this.scope, `/users/${seg(userId)}`));
    } catch (error) {
      if (isKnownError(error, "USER_NOT_FOUND") || isKnownError(error, "USER_ID_DOES_NOT_EXIST")) return null;
      throw error;
    }
  }

  async listUsers(options: ListUsersOptions = {}): Promise<Paginated<ServerUser>> {
    const result = await call<WireUserPage>(
      this.scope,
      withQuery("/users", {
        cursor: options.cursor,
        limit: options.limit,
        order_by: options.orderBy === "signedUpAt" ? "signed_up_at" : undefined,
        desc: options.desc,
        query: options.query,
        include_anonymous: options.includeAnonymous,
        include_restricted: options.includeRestricted,
        team_id: options.teamId,
      }),
    );
    const users = result.items.map((item) => serverUserFromJson(this.ctx, item)) as Paginated<ServerUser>;
    users.nextCursor = result.pagination?.next_cursor ?? null;
    return users;
  }

  async createUser(options: ServerUserCreateOptions): Promise<ServerUser> {
    const json = await call<WireServerUser>(this.scope, "/users", {
      method: "POST",
      body: userCreateToWire(options),
    });
    this.ctx.invalidateUserData();
    return serverUserFromJson(this.ctx, json);
  }

  /**
   * Signs a user in from the server: new session tokens, e.g. to hand to a client (`signInWithTokens`). With
   * `isImpersonation`, the session is marked as an admin acting as the user.
   */
  createSession(options: {
    userId: string;
    expiresInMillis?: number;
    isImpersonation?: boolean;
  }): Promise<{ accessToken: string; refreshToken: string }> {
    return createUserSession(this.scope, options.userId, options);
  }

  async listTeams(options: { userId?: string } = {}): Promise<ServerTeam[]> {
    const result = await call<WireList<WireTeam>>(
      this.scope,
      withQuery("/teams", { user_id: options.userId }),
    );
    return result.items.map((item) => teamFromJson(this.scope, item) as ServerTeam);
  }

  async getTeam(teamId: string): Promise<ServerTeam | null> {
    try {
      return teamFromJson(
        this.scope,
        await call<WireTeam>(this.scope, `/teams/${seg(teamId)}`),
      ) as ServerTeam;
    } catch (error) {
      if (isKnownError(error, "TEAM_NOT_FOUND")) return null;
      throw error;
    }
  }

  async createTeam(options: ServerTeamCreateOptions): Promise<ServerTeam> {
    return (await createTeam(this.scope, options)) as ServerTeam;
  }

  // --- Payments of any customer, custom ones included (objects/customers.ts) ---

  protected override paymentsScope(): Scope {
    return this.scope;
  }

  override getItem(options: CustomerOptions & { itemId: string }): Promise<ServerItem> {
    return serverCustomerMethods(this.scope, customerOf(options)).getItem(options.itemId);
  }

  /** Gives a customer a product (a catalogue id, or one given inline) without payment. */
  grantProduct(options: CustomerOptions & ProductChoice & { quantity?: number }): Promise<void> {
    return serverCustomerMethods(this.scope, customerOf(options)).grantProduct(options);
  }

  /** The purchase page's URL for a customer and a product (a catalogue id, or one given inline). */
  createCheckoutUrl(options: CustomerOptions & ProductChoice & { returnUrl?: string }): Promise<string> {
    return serverCustomerMethods(this.scope, customerOf(options)).createCheckoutUrl(options);
  }

  // --- Email to users and the outbox (emails.ts); the admin app calls them with admin access ---

  private readonly emails = emailMethods({ ctx: this.ctx, accessType: this.accessKind(), session: null });
  sendEmail = this.emails.sendEmail;
  listOutboxEmails = this.emails.listOutboxEmails;
  getOutboxEmail = this.emails.getOutboxEmail;
  updateOutboxEmail = this.emails.updateOutboxEmail;
  pauseOutboxEmail = this.emails.pauseOutboxEmail;
  unpauseOutboxEmail = this.emails.unpauseOutboxEmail;
  cancelOutboxEmail = this.emails.cancelOutboxEmail;
  sendSignInInvitationEmail = this.emails.sendSignInInvitationEmail;

  // --- Delivery info and capacity boosts (admin-email-drafts.ts) ---

  private readonly emailCapacity = emailCapacityMethods({
    ctx: this.ctx,
    accessType: this.accessKind(),
    session: null,
  });
  getEmailDeliveryInfo = this.emailCapacity.getEmailDeliveryInfo;
  getEmailDeliveryStats = this.emailCapacity.getEmailDeliveryStats;
  activateEmailCapacityBoost = this.emailCapacity.activateEmailCapacityBoost;
}
