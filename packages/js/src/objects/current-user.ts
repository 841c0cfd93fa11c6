import type { WireClientUser, WireProviderAccessToken } from "@gatehouse/shared";
import { isKnownError, type KnownError } from "@gatehouse/shared";
import { type Auth, authFunctions } from "../apps/auth-tokens.ts";
import type { AppContext } from "../apps/context.ts";
import type { Session } from "../session/session.ts";
import { lazyMethods } from "../utils/lazy.ts";
import { type Customer, customerMethods, type ServerCustomer } from "./customers.ts";
import type { ProjectOwnerMethods } from "./owned-projects.ts";
import { call, type Scope } from "./scope.ts";
import { teamFromJson } from "./teams.ts";
import { userMethods } from "./user-methods.ts";
import { type BaseUser, baseUserFromJson, type ServerUserFields } from "./users.ts";

type UserMethods = Omit<ReturnType<typeof userMethods>, "grantPermission" | "revokePermission">;

/** A connected OAuth account whose provider access token can be fetched (PROTOCOL.md §3.15). */
export type OAuthConnection = {
  readonly id: string;
  getAccessToken(): Promise<{ accessToken: string }>;
};

type SessionUserMethods = {
  /** Returns PASSWORD_CONFIRMATION_MISMATCH or a PASSWORD_REQUIREMENTS_NOT_MET error instead of throwing. */
  updatePassword(options: { oldPassword: string; newPassword: string }): Promise<KnownError | undefined>;
  setPassword(options: { password: string }): Promise<KnownError | undefined>;
  /** The provider's access token for a connected account, or null if not connected or missing scopes. */
  getConnectedAccount(provider: string, options?: { scopes?: string[] }): Promise<OAuthConnection | null>;
};

/** The signed-in user as a client sees it, with everything they may do. */
export type CurrentUser = BaseUser &
  Auth &
  UserMethods &
  SessionUserMethods &
  Customer &
  Partial<ProjectOwnerMethods>;

/** The signed-in user of a request as a server sees it: the client's calls plus the server's. */
export type CurrentServerUser = Omit<CurrentUser, keyof ServerCustomer> &
  ServerCustomer &
  ServerUserFields &
  ReturnType<typeof userMethods>;

/**
 * What an `internal` project user can do with the projects their teams own, loaded on first call: owned projects
 * come with admin apps, which a browser app that never lists them should not carry.
 */
export function projectOwnerMethods(scope: Scope, session: Session): ProjectOwnerMethods {
  return lazyMethods(async () => (await import("./owned-projects.ts")).projectOwnerMethods(scope, session), {
    createProject: true,
    listOwnedProjects: true,
    transferProject: true,
    listDevInbox: true,
  });
}

const PASSWORD_ERRORS = ["PASSWORD_CONFIRMATION_MISMATCH", "PASSWORD_REQUIREMENTS_NOT_MET"] as const;

async function passwordCall(scope: Scope, path: string, body: unknown): Promise<KnownError | undefined> {
  try {
    await call(scope, path, { method: "POST", body });
  } catch (error) {
    if (PASSWORD_ERRORS.some((code) => isKnownError(error, code))) return error as KnownError;
    throw error;
  }
  scope.ctx.invalidateUserData();
  return undefined;
}

/** The calls only a user with a session can make: password changes, connected accounts. */
export function sessionUserMethods(scope: Scope) {
  return {
    updatePassword: (options: { oldPassword: string; newPassword: string }) =>
      passwordCall(scope, "/auth/password/update", {
        old_password: options.oldPassword,
        new_password: options.newPassword,
      }),
    setPassword: (options: { password: string }) =>
      passwordCall(scope, "/auth/password/set", { password: options.password }),
    async getConnectedAccount(
      provider: string,
      options: { scopes?: string[] } = {},
    ): Promise<OAuthConnection | null> {
      const fetchToken = async () => {
        const result = await call<WireProviderAccessToken>(
          scope,
          `/connected-accounts/me/${encodeURIComponent(provider)}/access-token`,
          {
            method: "POST",
            body: { scope: (options.scopes ?? []).join(" ") },
          },
        );
        return { accessToken: result.access_token };
      };
      try {
        await fetchToken();
      } catch (error) {
        // Not connected, or connected without the scopes: there is no token to hand out (SPEC.md §7).
        if (
          isKnownError(error, "OAUTH_CONNECTION_NOT_CONNECTED_TO_USER") ||
          isKnownError(error, "OAUTH_CONNECTION_DOES_NOT_HAVE_REQUIRED_SCOPE")
        ) {
          return null;
        }
        throw error;
      }
      return { id: provider, getAccessToken: fetchToken };
    },
  };
}

/** Builds the client's current user from `GET /users/me`. */
export function currentUserFromJson(ctx: AppContext, session: Session, json: WireClientUser): CurrentUser {
  const scope: Scope = { ctx, accessType: "client", session };
  const selectedTeam = json.selected_team ? teamFromJson(scope, json.selected_team) : null;
  const {
    grantPermission: _grant,
    revokePermission: _revoke,
    ...methods
  } = userMethods(scope, "me", json.primary_email ?? null);
  return {
    ...baseUserFromJson(json, selectedTeam),
    ...authFunctions(ctx, session),
    ...methods,
    ...sessionUserMethods(scope),
    ...customerMethods(scope, { type: "user", id: json.id }),
    async delete() {
      await methods.delete();
      session.clear();
    },
    ...(ctx.projectId === "internal" ? projectOwnerMethods(scope, session) : {}),
  };
}
