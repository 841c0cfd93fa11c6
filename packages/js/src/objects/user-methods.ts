import type {
  WireClientMemberProfile,
  WireClientOAuthProvider,
  WireList,
  WireNotificationPreference,
  WireServerOAuthProvider,
  WireTeamInvitation,
} from "@gatehouse/shared";
import { isKnownError, type KnownError } from "@gatehouse/shared";
import { type ApiKey, type ApiKeyCreateOptions, createApiKey, listUserApiKeys } from "./api-keys.ts";
import {
  type ContactChannel,
  createContactChannel,
  listContactChannels,
  type ServerContactChannelCreateOptions,
  verificationCallbackUrl,
} from "./contact-channels.ts";
import {
  grantPermission,
  listPermissions,
  type PermissionScope,
  revokePermission,
  splitPermissionArgs,
  type TeamPermission,
} from "./permissions.ts";
import { call, defined, type Scope, seg, withQuery } from "./scope.ts";
import { type ActiveSession, listActiveSessions, revokeSession } from "./sessions.ts";
import { createTeam, listTeams, type ServerTeamCreateOptions, type Team } from "./teams.ts";
import { type ServerUserUpdateOptions, userUpdateToWire } from "./users.ts";

export type NotificationCategory = {
  id: string;
  name: string;
  enabled: boolean;
  canDisable: boolean;
  setEnabled(enabled: boolean): Promise<void>;
};

export type OAuthProvider = {
  readonly id: string;
  readonly type: string;
  readonly userId: string;
  readonly accountId?: string;
  readonly email?: string;
  readonly allowSignIn: boolean;
  readonly allowConnectedAccounts: boolean;
  update(data: { allowSignIn?: boolean; allowConnectedAccounts?: boolean; email?: string }): Promise<void>;
  delete(): Promise<void>;
};

export type EditableTeamMemberProfile = {
  displayName: string | null;
  profileImageUrl: string | null;
  update(update: { displayName?: string; profileImageUrl?: string | null }): Promise<void>;
};

export type ReceivedTeamInvitation = { id: string; teamId: string; teamDisplayName: string; expiresAt: Date };

type PermissionOptions = { recursive?: boolean };
type PermissionArgs = [
  scopeOrId: { id: string } | string,
  permissionIdOrOptions?: string | PermissionOptions,
  options?: PermissionOptions,
];

/**
 * The calls a user object offers, for the signed-in user of a client (`userId` = `me`, with the session) and for
 * any user of a server (its id, with the server key). The differences between those live in current-user.ts and
 * server-user.ts.
 */
export function userMethods(scope: Scope, userId: string, primaryEmail: string | null) {
  const path = `/users/${seg(userId)}`;
  const afterUserChange = () => {
    scope.ctx.invalidateUserData();
    // The access token's claims (name, email, team) were built from the old user; get a new one.
    const token = scope.session?.peekTokens().accessToken;
    if (scope.session && token) scope.session.markAccessTokenExpired(token);
  };

  const permissionCall = (args: PermissionArgs): [PermissionScope, string] => {
    const [team, id, rest] = splitPermissionArgs(args[0], args.slice(1));
    return id === undefined ? [team, rest[0] as string] : [team, id];
  };

  const methods = {
    async update(update: ServerUserUpdateOptions): Promise<void> {
      await call(scope, path, { method: "PATCH", body: userUpdateToWire(update) });
      afterUserChange();
    },
    setDisplayName(displayName: string | null) {
      return methods.update({ displayName });
    },
    setClientMetadata(clientMetadata: unknown) {
      return methods.update({ clientMetadata });
    },
    setSelectedTeam(teamOrId: string | { id: string } | null) {
      return methods.update({
        selectedTeamId: typeof teamOrId === "string" ? teamOrId : (teamOrId?.id ?? null),
      });
    },
    /** Sends the verification email for the primary email; returns EMAIL_ALREADY_VERIFIED instead of throwing. */
    async sendVerificationEmail(options: { callbackUrl?: string } = {}): Promise<KnownError | undefined> {
      if (!primaryEmail) throw new Error("This user has no primary email to verify.");
      try {
        await call(scope, "/contact-channels/send-verification-code", {
          method: "POST",
          body: { email: primaryEmail, callback_url: verificationCallbackUrl(scope, options.callbackUrl) },
        });
      } catch (error) {
        if (isKnownError(error, "EMAIL_ALREADY_VERIFIED")) return error;
        throw error;
      }
      return undefined;
    },
    listContactChannels: (): Promise<ContactChannel[]> => listContactChannels(scope, userId),
    createContactChannel: (options: ServerContactChannelCreateOptions) =>
      createContactChannel(scope, userId, options),
    getActiveSessions: (): Promise<ActiveSession[]> => listActiveSessions(scope, userId),
    revokeSession: (sessionId: string) => revokeSession(scope, userId, sessionId),
    listTeams: (): Promise<Team[]> => listTeams(scope, userId),
    async getTeam(teamId: string): Promise<Team | null> {
      return (await methods.listTeams()).find((team) => team.id === teamId) ?? null;
    },
    createTeam: (options: Omit<ServerTeamCreateOptions, "creatorUserId">) =>
      createTeam(scope, { ...options, creatorUserId: userId }),
    async leaveTeam(team: { id: string }): Promise<void> {
      await call(scope, `/team-memberships/${seg(team.id)}/${seg(userId)}`, { method: "DELETE" });
      scope.ctx.invalidateUserData();
    },
    async listTeamInvitations(): Promise<ReceivedTeamInvitation[]> {
      const result = await call<WireList<WireTeamInvitation>>(
        scope,
        withQuery("/team-invitations", { user_id: userId }),
      );
      return result.items.map((item) => ({
        id: item.id,
        teamId: item.team_id,
        teamDisplayName: item.team_display_name,
        expiresAt: new Date(item.expires_at_millis),
      }));
    },
    async getTeamProfile(team: { id: string }): Promise<EditableTeamMemberProfile> {
      const profilePath = `/team-member-profiles/${seg(team.id)}/${seg(userId)}`;
      const json = await call<WireClientMemberProfile>(scope, profilePath);
      return {
        displayName: json.display_name ?? null,
        profileImageUrl: json.profile_image_url ?? null,
        async update(update) {
          await call(scope, profilePath, {
            method: "PATCH",
            body: defined({ display_name: update.displayName, profile_image_url: update.profileImageUrl }),
          });
        },
      };
    },
    /** `listPermissions(team?, {recursive})`; recursive (contained permissions included) by default. */
    listPermissions(
      teamOrOptions?: { id: string } | { recursive?: boolean },
      options?: { recursive?: boolean },
    ) {
      const isTeam = teamOrOptions !== undefined && "id" in teamOrOptions;
      return listPermissions(
        scope,
        userId,
        isTeam ? (teamOrOptions as { id: string }) : undefined,
        (isTeam ? options : (teamOrOptions as { recursive?: boolean } | undefined)) ?? {},
      );
    },
    /** `getPermission(team, id)` or `getPermission(id)` for project permissions. */
    async getPermission(...args: PermissionArgs): Promise<TeamPermission | null> {
      const [team, permissionId] = permissionCall(args);
      const all = await listPermissions(scope, userId, team);
      return all.find((permission) => permission.id === permissionId) ?? null;
    },
    async hasPermission(...args: PermissionArgs): Promise<boolean> {
      return (await methods.getPermission(...args)) !== null;
    },
    grantPermission(...args: PermissionArgs): Promise<void> {
      const [team, permissionId] = permissionCall(args);
      return grantPermission(scope, userId, team, permissionId);
    },
    revokePermission(...args: PermissionArgs): Promise<void> {
      const [team, permissionId] = permissionCall(args);
      return revokePermission(scope, userId, team, permissionId);
    },
    createApiKey: (options: ApiKeyCreateOptions) =>
      createApiKey(scope, { type: "user", ownerId: userId }, options),
    listApiKeys: (): Promise<ApiKey[]> => listUserApiKeys(scope, userId),
    async listOAuthProviders(): Promise<OAuthProvider[]> {
      const result = await call<WireList<WireClientOAuthProvider | WireServerOAuthProvider>>(
        scope,
        withQuery("/oauth-providers", { user_id: userId }),
      );
      return result.items.map((item) => oauthProviderFromJson(scope, item));
    },
    async getOAuthProvider(id: string): Promise<OAuthProvider | null> {
      return (await methods.listOAuthProviders()).find((provider) => provider.id === id) ?? null;
    },
    async listNotificationCategories(): Promise<NotificationCategory[]> {
      // The reference once answered a bare array; both are read.
      const result = await call<WireNotificationPreference[] | WireList<WireNotificationPreference>>(
        scope,
        `/emails/notification-preference/${seg(userId)}`,
      );
      const items = Array.isArray(result) ? result : result.items;
      return items.map((item) => ({
        id: item.notification_category_id,
        name: item.notification_category_name,
        enabled: item.enabled === true,
        canDisable: item.can_disable === true,
        async setEnabled(enabled: boolean) {
          await call(
            scope,
            `/emails/notification-preference/${seg(userId)}/${seg(item.notification_category_id)}`,
            {
              method: "PATCH",
              body: { enabled },
            },
          );
        },
      }));
    },
    async delete(): Promise<void> {
      await call(scope, path, { method: "DELETE" });
      scope.ctx.invalidateUserData();
    },
  };
  return methods;
}

function oauthProviderFromJson(
  scope: Scope,
  json: WireClientOAuthProvider & Partial<WireServerOAuthProvider>,
): OAuthProvider {
  const providerPath = `/oauth-providers/${seg(json.user_id)}/${seg(json.id)}`;
  return {
    id: json.id,
    type: json.type,
    userId: json.user_id,
    ...(json.account_id !== undefined ? { accountId: json.account_id } : {}),
    ...(json.email ? { email: json.email } : {}),
    allowSignIn: json.allow_sign_in === true,
    allowConnectedAccounts: json.allow_connected_accounts === true,
    async update(data) {
      await call(scope, providerPath, {
        method: "PATCH",
        body: defined({
          allow_sign_in: data.allowSignIn,
          allow_connected_accounts: data.allowConnectedAccounts,
          email: data.email,
        }),
      });
      scope.ctx.invalidateUserData();
    },
    async delete() {
      await call(scope, providerPath, { method: "DELETE" });
      scope.ctx.invalidateUserData();
    },
  };
}
