/** Helpers shared by the users tests. */
import { and, eq } from "drizzle-orm";
import { randomUuid } from "../../crypto/index.ts";
import type { TestProject, TestServer } from "../../testing/harness.ts";
import { contactChannels } from "../contact-channels/schema.ts";
import { sessions } from "../sessions/schema.ts";
import { teamMembers, teams } from "../teams/schema.ts";
import { users } from "./schema.ts";

export const CLIENT_VIEW_KEYS = [
  "id",
  "primary_email",
  "primary_email_verified",
  "display_name",
  "client_metadata",
  "client_read_only_metadata",
  "profile_image_url",
  "signed_up_at_millis",
  "has_password",
  "auth_with_email",
  "oauth_providers",
  "selected_team_id",
  "selected_team",
  "requires_totp_mfa",
  "otp_auth_enabled",
  "passkey_auth_enabled",
  "is_anonymous",
  "is_restricted",
  "restricted_reason",
  "restricted_by_admin",
  "restricted_by_admin_reason",
].sort();

export const SERVER_VIEW_KEYS = [
  ...CLIENT_VIEW_KEYS,
  "primary_email_auth_enabled",
  "server_metadata",
  "last_active_at_millis",
  "restricted_by_admin_private_details",
  "country_code",
  "risk_scores",
].sort();

/** Client headers for a signed-in user; the SDK always allows anonymous (and so restricted) users through. */
export function asUser(
  project: TestProject,
  accessToken: string,
  accessType: "client" | "server" | "admin" = "client",
) {
  return project.headers(accessType, {
    "x-stack-access-token": accessToken,
    "x-stack-allow-anonymous-user": "true",
  });
}

/** A team with these members, written straight to the tables (the teams API is not what is under test). */
export async function insertTeam(server: TestServer, projectId: string, memberIds: string[], name = "Team") {
  const id = randomUuid();
  await server.deps.db.insert(teams).values({ projectId, id, displayName: name });
  if (memberIds.length > 0) {
    await server.deps.db
      .insert(teamMembers)
      .values(memberIds.map((userId) => ({ projectId, teamId: id, userId })));
  }
  return id;
}

export async function sessionCount(server: TestServer, userId: string) {
  return (await server.deps.db.select().from(sessions).where(eq(sessions.userId, userId))).length;
}

export async function channelsOf(server: TestServer, projectId: string, userId: string) {
  return server.deps.db
    .select()
    .from(contactChannels)
    .where(and(eq(contactChannels.projectId, projectId), eq(contactChannels.userId, userId)));
}

export async function userRow(server: TestServer, userId: string) {
  const [row] = await server.deps.db.select().from(users).where(eq(users.id, userId));
  return row ?? null;
}
