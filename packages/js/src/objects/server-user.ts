import type { WireServerUser, WireSessionTokens } from "@gatehouse/shared";
import type { AuthJson } from "../apps/auth-tokens.ts";
import type { AppContext } from "../apps/context.ts";
import { type ServerCustomer, serverCustomerMethods } from "./customers.ts";
import { call, type Scope } from "./scope.ts";
import { teamFromJson } from "./teams.ts";
import { userMethods } from "./user-methods.ts";
import { type BaseUser, baseUserFromJson, type ServerUserFields, serverUserFieldsFromJson } from "./users.ts";

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
