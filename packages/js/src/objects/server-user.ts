import type { WireServerUser, WireServerUserCreate, WireSessionTokens } from "@gatehouse/shared";
import { type AuthJson, authFunctions } from "../apps/auth-tokens.ts";
import type { AppContext } from "../apps/context.ts";
import type { Session } from "../session/session.ts";
import { type CurrentServerUser, projectOwnerMethods, sessionUserMethods } from "./current-user.ts";
import { type ServerCustomer, serverCustomerMethods } from "./customers.ts";
import { call, defined, type Scope } from "./scope.ts";
import { teamFromJson } from "./teams.ts";
import { userMethods } from "./user-methods.ts";
import {
  type BaseUser,
  baseUserFromJson,
  type ServerUserCreateOptions,
  type ServerUserFields,
  userUpdateToWire,
} from "./users.ts";

// Users as a server app sees them (any user of the project, and the current user of a request), apart from the
// client's objects so that a browser bundle does not carry them.

/** Default lifetime of a session a server creates (SPEC.md §9). */
export const DEFAULT_SESSION_EXPIRY_MS = 31_536_000_000;

export type ServerUser = BaseUser &
  ServerUserFields &
  ReturnType<typeof userMethods> &
  ServerCustomer & {
    setServerMetadata(metadata: unknown): Promise<void>;
    setClientReadOnlyMetadata(metadata: unknown): Promise<void>;
    setPrimaryEmail(email: string | null, options?: { verified?: boolean }): Promise<void>;
    /** Signs this user in: a new session whose tokens the server can hand out (PROTOCOL.md §4.10). */
    createSession(options?: { expiresInMillis?: number; isImpersonation?: boolean }): Promise<{
      getTokens(): Promise<AuthJson>;
    }>;
  };

/** Creates a session for a user id; `POST /auth/sessions` with server access. */
export async function createUserSession(
  scope: Scope,
  userId: string,
  options: { expiresInMillis?: number; isImpersonation?: boolean } = {},
): Promise<{ accessToken: string; refreshToken: string }> {
  const result = await call<WireSessionTokens>(scope, "/auth/sessions", {
    method: "POST",
    body: {
      user_id: userId,
      expires_in_millis: options.expiresInMillis ?? DEFAULT_SESSION_EXPIRY_MS,
      is_impersonation: options.isImpersonation ?? false,
    },
  });
  return { accessToken: result.access_token, refreshToken: result.refresh_token };
}

export function serverUserFromJson(ctx: AppContext, json: WireServerUser): ServerUser {
  const scope: Scope = { ctx, accessType: "server", session: null };
  const selectedTeam = json.selected_team ? teamFromJson(scope, json.selected_team) : null;
  const methods = userMethods(scope, json.id, json.primary_email ?? null);
  return {
    ...baseUserFromJson(json, selectedTeam),
    ...serverUserFieldsFromJson(json),
    ...methods,
    ...serverCustomerMethods(scope, { type: "user", id: json.id }),
    setServerMetadata: (serverMetadata) => methods.update({ serverMetadata }),
    setClientReadOnlyMetadata: (clientReadOnlyMetadata) => methods.update({ clientReadOnlyMetadata }),
    setPrimaryEmail: (primaryEmail, options = {}) =>
      methods.update({
        primaryEmail,
        ...(options.verified !== undefined ? { primaryEmailVerified: options.verified } : {}),
      }),
    async createSession(options = {}) {
      const tokens = await createUserSession(scope, json.id, options);
      return { getTokens: async () => ({ ...tokens }) };
    },
  };
}

/** Builds the current user of a server app (from a request's tokens), with server fields and the server key. */
export function currentServerUserFromJson(
  ctx: AppContext,
  session: Session,
  json: WireServerUser,
): CurrentServerUser {
  const scope: Scope = { ctx, accessType: "server", session };
  const selectedTeam = json.selected_team ? teamFromJson(scope, json.selected_team) : null;
  const methods = userMethods(scope, json.id, json.primary_email ?? null);
  return {
    ...baseUserFromJson(json, selectedTeam),
    ...serverUserFieldsFromJson(json),
    ...authFunctions(ctx, session),
    ...methods,
    ...sessionUserMethods(scope),
    ...serverCustomerMethods(scope, { type: "user", id: json.id }),
    ...(ctx.projectId === "internal"
      ? projectOwnerMethods({ ctx, accessType: "client", session }, session)
      : {}),
  };
}

export function serverUserFieldsFromJson(json: WireServerUser): ServerUserFields {
  return {
    serverMetadata: json.server_metadata ?? null,
    lastActiveAt: new Date(json.last_active_at_millis ?? json.signed_up_at_millis),
    primaryEmailAuthEnabled: json.primary_email_auth_enabled === true,
    countryCode: json.country_code ?? null,
    riskScores: {
      signUp: {
        bot: json.risk_scores?.sign_up?.bot ?? 0,
        freeTrialAbuse: json.risk_scores?.sign_up?.free_trial_abuse ?? 0,
      },
    },
    restrictedByAdmin: json.restricted_by_admin === true,
    restrictedByAdminReason: json.restricted_by_admin_reason ?? null,
    restrictedByAdminPrivateDetails: json.restricted_by_admin_private_details ?? null,
  };
}

export function userCreateToWire(options: ServerUserCreateOptions): WireServerUserCreate {
  return defined<WireServerUserCreate>({
    ...userUpdateToWire({
      primaryEmail: options.primaryEmail,
      primaryEmailVerified: options.primaryEmailVerified,
      primaryEmailAuthEnabled: options.primaryEmailAuthEnabled,
      password: options.password,
      otpAuthEnabled: options.otpAuthEnabled,
      displayName: options.displayName,
      profileImageUrl: options.profileImageUrl,
      clientMetadata: options.clientMetadata,
      clientReadOnlyMetadata: options.clientReadOnlyMetadata,
      serverMetadata: options.serverMetadata,
      countryCode: options.countryCode,
      riskScores: options.riskScores,
    }),
    is_anonymous: options.isAnonymous,
  });
}
