import type {
  WireClientMemberProfile,
  WireClientTeam,
  WireList,
  WireServerTeam,
  WireTeamApiKey,
  WireTeamCreate,
  WireTeamInvitation,
  WireTeamUpdate,
} from "@gatehouse/shared";
import { absoluteUrl, currentOrigin } from "../apps/urls.ts";
import { type ApiKey, type ApiKeyCreateOptions, apiKeyFromJson, createApiKey } from "./api-keys.ts";
import {
  type Customer,
  type CustomerRef,
  customerMethods,
  type ServerCustomer,
  serverCustomerMethods,
} from "./customers.ts";
import { call, dateOrNull, defined, type Scope, seg, withQuery } from "./scope.ts";

export type TeamUpdateOptions = {
  displayName?: string;
  profileImageUrl?: string | null;
  clientMetadata?: unknown;
};

export type ServerTeamUpdateOptions = TeamUpdateOptions & {
  clientReadOnlyMetadata?: unknown;
  serverMetadata?: unknown;
};

export type TeamCreateOptions = { displayName: string; profileImageUrl?: string | null };
export type ServerTeamCreateOptions = TeamCreateOptions & {
  creatorUserId?: string;
  clientMetadata?: unknown;
  clientReadOnlyMetadata?: unknown;
  serverMetadata?: unknown;
};

export type TeamMemberProfile = { displayName: string | null; profileImageUrl: string | null };
export type TeamUser = { id: string; teamProfile: TeamMemberProfile };

export type TeamInvitation = {
  id: string;
  recipientEmail: string | null;
  expiresAt: Date;
  revoke(): Promise<void>;
};

export type Team = {
  readonly id: string;
  readonly displayName: string;
  readonly profileImageUrl: string | null;
  readonly clientMetadata: unknown;
  readonly clientReadOnlyMetadata: unknown;
  update(update: TeamUpdateOptions): Promise<void>;
  delete(): Promise<void>;
  inviteUser(options: { email: string; callbackUrl?: string }): Promise<void>;
  listUsers(): Promise<TeamUser[]>;
  listInvitations(): Promise<TeamInvitation[]>;
  createApiKey(options: ApiKeyCreateOptions): Promise<ApiKey & { value: string }>;
  listApiKeys(): Promise<ApiKey[]>;
} & Customer;

export type ServerTeam = Omit<Team, "update" | keyof ServerCustomer> &
  ServerCustomer & {
    readonly createdAt: Date;
    readonly serverMetadata: unknown;
    update(update: ServerTeamUpdateOptions): Promise<void>;
    addUser(userId: string): Promise<void>;
    removeUser(userId: string): Promise<void>;
  };

export function teamUpdateToWire(update: ServerTeamUpdateOptions): WireTeamUpdate {
  return defined<WireTeamUpdate>({
    display_name: update.displayName,
    profile_image_url: update.profileImageUrl,
    client_metadata: update.clientMetadata,
    client_read_only_metadata: update.clientReadOnlyMetadata,
    server_metadata: update.serverMetadata,
  });
}

/** A team as read: a client's, or a server's with its server fields (read when the scope is a server's). */
export type WireTeam = WireClientTeam &
  Partial<Pick<WireServerTeam, "created_at_millis" | "server_metadata">>;

export function teamFromJson(scope: Scope, json: WireTeam): Team & Partial<ServerTeam> {
  const id: string = json.id;
  const invalidate = () => scope.ctx.invalidateUserData();
  const customer: CustomerRef = { type: "team", id };
  const payments =
    scope.accessType === "client" ? customerMethods(scope, customer) : serverCustomerMethods(scope, customer);
  const team: Team = {
    ...payments,
    id,
    displayName: json.display_name,
    profileImageUrl: json.profile_image_url ?? null,
    clientMetadata: json.client_metadata ?? null,
    clientReadOnlyMetadata: json.client_read_only_metadata ?? null,
    async update(update) {
      await call(scope, `/teams/${seg(id)}`, { method: "PATCH", body: teamUpdateToWire(update) });
      invalidate();
    },
    async delete() {
      await call(scope, `/teams/${seg(id)}`, { method: "DELETE" });
      invalidate();
    },
    async inviteUser(options) {
      const callbackUrl = absoluteUrl(
        options.callbackUrl ?? scope.ctx.urls.teamInvitation,
        currentOrigin(),
        "The team invitation callback URL",
      );
      await call(scope, "/team-invitations/send-code", {
        method: "POST",
        body: { email: options.email, team_id: id, callback_url: callbackUrl },
      });
    },
    async listUsers() {
      const result = await call<WireList<WireClientMemberProfile>>(
        scope,
        withQuery("/team-member-profiles", { team_id: id }),
      );
      return result.items.map((item) => ({
        id: item.user_id,
        teamProfile: {
          displayName: item.display_name ?? null,
          profileImageUrl: item.profile_image_url ?? null,
        },
      }));
    },
    async listInvitations() {
      const result = await call<WireList<WireTeamInvitation>>(
        scope,
        withQuery("/team-invitations", { team_id: id }),
      );
      return result.items.map((item) => ({
        id: item.id,
        recipientEmail: item.recipient_email ?? null,
        expiresAt: new Date(item.expires_at_millis),
        revoke: async () => {
          await call(scope, withQuery(`/team-invitations/${seg(item.id)}`, { team_id: id }), {
            method: "DELETE",
          });
        },
      }));
    },
    createApiKey: (options) => createApiKey(scope, { type: "team", ownerId: id }, options),
    async listApiKeys() {
      const result = await call<WireList<WireTeamApiKey>>(
        scope,
        withQuery("/team-api-keys", { team_id: id }),
      );
      return result.items.map((item) => apiKeyFromJson(scope, item));
    },
  };
  if (scope.accessType !== "client") {
    Object.assign(team, {
      createdAt: dateOrNull(json.created_at_millis) ?? new Date(0),
      serverMetadata: json.server_metadata ?? null,
      async addUser(userId: string) {
        await call(scope, `/team-memberships/${seg(id)}/${seg(userId)}`, { method: "POST", body: {} });
        invalidate();
      },
      async removeUser(userId: string) {
        await call(scope, `/team-memberships/${seg(id)}/${seg(userId)}`, { method: "DELETE" });
        invalidate();
      },
    });
  }
  return team as Team & Partial<ServerTeam>;
}

/** `POST /teams`; a client creates teams for itself (`creator_user_id: me`). */
export async function createTeam(
  scope: Scope,
  options: ServerTeamCreateOptions,
): Promise<Team & Partial<ServerTeam>> {
  const json = await call<WireTeam>(scope, "/teams", {
    method: "POST",
    body: defined<WireTeamCreate>({
      display_name: options.displayName,
      profile_image_url: options.profileImageUrl,
      creator_user_id: options.creatorUserId ?? (scope.accessType === "client" ? "me" : undefined),
      client_metadata: options.clientMetadata,
      client_read_only_metadata: options.clientReadOnlyMetadata,
      server_metadata: options.serverMetadata,
    }),
  });
  scope.ctx.invalidateUserData();
  return teamFromJson(scope, json);
}

/** Teams of a user (`me` for the signed-in user), or of the whole project for a server without a user. */
export async function listTeams(scope: Scope, userId: string | undefined) {
  const result = await call<WireList<WireTeam>>(scope, withQuery("/teams", { user_id: userId }));
  return result.items.map((item) => teamFromJson(scope, item));
}
