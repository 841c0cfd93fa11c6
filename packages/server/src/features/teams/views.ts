import type { WireClientMemberProfile, WireServerMemberProfile, WireTeamInvitation } from "@gatehouse/shared";
import { and, asc, eq, type SQL } from "drizzle-orm";
import { z } from "zod";
import type { RenderedConfig } from "../../config/index.ts";
import type { Database } from "../../db/index.ts";
import { isUuid } from "../../fields/ids.ts";
import { wire } from "../../http/wire-schema.ts";
import { users } from "../users/schema.ts";
import { loadUserRelations } from "../users/user-with-relations.ts";
import { serverUserSchema, userView } from "../users/views.ts";
import { type TeamInvitationRow, type TeamRow, teamMembers } from "./schema.ts";

export const success = z.object({ success: z.literal(true) });

export function listOf<T extends z.ZodType>(item: T) {
  return z.object({ items: z.array(item), is_paginated: z.literal(false) });
}

/** PROTOCOL.md §3.4 client read. */
export const clientMemberProfileSchema = wire<WireClientMemberProfile>()(
  z.object({
    team_id: z.string(),
    user_id: z.string(),
    display_name: z.string().nullable(),
    profile_image_url: z.string().nullable(),
  }),
);

/** PROTOCOL.md §3.4 server read: the member's full server user too. */
export const serverMemberProfileSchema = wire<WireServerMemberProfile>()(
  clientMemberProfileSchema.extend({ user: serverUserSchema }),
);

export type MemberProfileView = WireServerMemberProfile;

/** PROTOCOL.md §3.5 read (the same for every access type). */
export const teamInvitationSchema = wire<WireTeamInvitation>()(
  z.object({
    id: z.string(),
    team_id: z.string(),
    team_display_name: z.string(),
    expires_at_millis: z.number(),
    recipient_email: z.string(),
  }),
);

export function invitationView(
  invitation: TeamInvitationRow,
  team: Pick<TeamRow, "displayName">,
): WireTeamInvitation {
  return {
    id: invitation.id,
    team_id: invitation.teamId,
    team_display_name: team.displayName,
    expires_at_millis: invitation.expiresAt.getTime(),
    recipient_email: invitation.recipientEmail,
  };
}

/**
 * Member profiles matching the filter, oldest membership first, in three queries however many there are. A member
 * without their own team name or picture shows their user's.
 */
export async function loadMemberProfiles(
  db: Database,
  projectId: string,
  config: RenderedConfig,
  filter: { teamId?: string; userId?: string },
): Promise<MemberProfileView[]> {
  if (filter.teamId !== undefined && !isUuid(filter.teamId)) return [];
  if (filter.userId !== undefined && !isUuid(filter.userId)) return [];
  const conditions: SQL[] = [eq(teamMembers.projectId, projectId)];
  if (filter.teamId !== undefined) conditions.push(eq(teamMembers.teamId, filter.teamId));
  if (filter.userId !== undefined) conditions.push(eq(teamMembers.userId, filter.userId));
  const rows = await db
    .select({ member: teamMembers, user: users })
    .from(teamMembers)
    .innerJoin(users, eq(users.id, teamMembers.userId))
    .where(and(...conditions))
    .orderBy(asc(teamMembers.createdAt), asc(teamMembers.userId));
  const relations = await loadUserRelations(
    db,
    projectId,
    rows.map((r) => r.user),
  );
  return rows.map(({ member, user }) => ({
    team_id: member.teamId,
    user_id: member.userId,
    display_name: member.displayName ?? user.displayName,
    profile_image_url: member.profileImageUrl ?? user.profileImageUrl,
    user: userView(user, relations, config),
  }));
}
