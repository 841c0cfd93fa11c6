import { knownError } from "@gatehouse/shared";
import { and, asc, eq, gt, inArray } from "drizzle-orm";
import type { RenderedConfig } from "../../config/index.ts";
import { randomUuid } from "../../crypto/index.ts";
import type { Database } from "../../db/index.ts";
import { isUuid } from "../../fields/ids.ts";
import { contactChannels } from "../contact-channels/schema.ts";
import { userChannelsWhere } from "../contact-channels/store.ts";
import type { UserRow } from "../users/schema.ts";
import { findPrimaryChannel } from "../users/service.ts";
import { restrictedReasonOf } from "../users/views.ts";
import { createVerificationCode, deleteCodes, markCodeUsed } from "../verification-codes/service.ts";
import { type TeamInvitationRow, type TeamRow, teamInvitations, teams } from "./schema.ts";
import { addMember } from "./service.ts";

export type InvitationWithTeam = { invitation: TeamInvitationRow; team: TeamRow };

/** Creates an invitation and the one-time code its link carries; both expire together (7 days). */
export async function createInvitation(
  db: Database,
  input: { projectId: string; teamId: string; email: string },
): Promise<{ invitation: TeamInvitationRow; code: string }> {
  return db.transaction(async (tx) => {
    const id = randomUuid();
    const { code, row } = await createVerificationCode(tx as Database, {
      projectId: input.projectId,
      purpose: "team_invitation",
      data: { team_id: input.teamId, email: input.email, invitation_id: id },
    });
    const [invitation] = await tx
      .insert(teamInvitations)
      .values({
        projectId: input.projectId,
        id,
        teamId: input.teamId,
        recipientEmail: input.email,
        codeId: row.id,
        expiresAt: row.expiresAt,
      })
      .returning();
    return { invitation: invitation!, code };
  });
}

/** Open (unexpired, unaccepted) invitations of a team, or to any of some email addresses; oldest first. */
export async function listOpenInvitations(
  db: Database,
  projectId: string,
  filter: { teamId: string } | { emails: readonly string[] },
): Promise<InvitationWithTeam[]> {
  const condition =
    "teamId" in filter
      ? eq(teamInvitations.teamId, filter.teamId)
      : inArray(teamInvitations.recipientEmail, [...filter.emails]);
  if ("emails" in filter && filter.emails.length === 0) return [];
  if ("teamId" in filter && !isUuid(filter.teamId)) return [];
  return db
    .select({ invitation: teamInvitations, team: teams })
    .from(teamInvitations)
    .innerJoin(teams, eq(teams.id, teamInvitations.teamId))
    .where(
      and(eq(teamInvitations.projectId, projectId), condition, gt(teamInvitations.expiresAt, new Date())),
    )
    .orderBy(asc(teamInvitations.createdAt), asc(teamInvitations.id));
}

export async function findInvitation(
  db: Database,
  projectId: string,
  invitationId: string,
): Promise<InvitationWithTeam | null> {
  if (!isUuid(invitationId)) return null;
  const [row] = await db
    .select({ invitation: teamInvitations, team: teams })
    .from(teamInvitations)
    .innerJoin(teams, eq(teams.id, teamInvitations.teamId))
    .where(and(eq(teamInvitations.projectId, projectId), eq(teamInvitations.id, invitationId)))
    .limit(1);
  return row ?? null;
}

/**
 * Revokes an invitation of a team. Its code is deleted with it (the invitation cascades from the code), so the
 * emailed link answers VERIFICATION_CODE_NOT_FOUND from then on.
 */
export async function revokeInvitation(
  db: Database,
  projectId: string,
  teamId: string,
  invitationId: string,
): Promise<boolean> {
  const found = await findInvitation(db, projectId, invitationId);
  if (!found || found.invitation.teamId !== teamId) return false;
  return (await deleteCodes(db, projectId, [found.invitation.codeId])) > 0;
}

/** The verified email addresses of a user: an invitation to any of them is theirs to accept. */
export async function verifiedEmailsOf(db: Database, projectId: string, userId: string): Promise<string[]> {
  const rows = await db
    .select({ value: contactChannels.value })
    .from(contactChannels)
    .where(
      userChannelsWhere(
        projectId,
        userId,
        eq(contactChannels.type, "email"),
        eq(contactChannels.isVerified, true),
      ),
    );
  return rows.map((r) => r.value);
}

/** Anonymous, unverified (when the project requires verification) and admin-restricted users cannot join teams. */
export async function refuseRestrictedUser(
  db: Database,
  user: UserRow,
  config: RenderedConfig,
): Promise<void> {
  const primary = await findPrimaryChannel(db, user.projectId, user.id);
  const reason = restrictedReasonOf(user, primary, config);
  if (reason) throw knownError("TEAM_INVITATION_RESTRICTED_USER_NOT_ALLOWED", { restricted_reason: reason });
}

/**
 * Makes the user a member of the invitation's team (if they are not already: accepting twice, or an invitation to
 * a team one already belongs to, is not an error) and closes the invitation. The team row is locked so that a
 * concurrent team deletion cannot slip between the check and the insert.
 */
export async function joinInvitedTeam(
  db: Database,
  input: {
    projectId: string;
    teamId: string;
    invitationId: string | null;
    user: UserRow;
    config: RenderedConfig;
  },
): Promise<void> {
  await db.transaction(async (tx) => {
    const [team] = await tx
      .select({ id: teams.id })
      .from(teams)
      .where(and(eq(teams.projectId, input.projectId), eq(teams.id, input.teamId)))
      .for("update");
    if (!team) throw knownError("TEAM_NOT_FOUND", { team_id: input.teamId });
    await addMember(tx as Database, {
      projectId: input.projectId,
      teamId: input.teamId,
      userId: input.user.id,
      config: input.config,
    });
    if (input.invitationId && isUuid(input.invitationId)) {
      await tx
        .delete(teamInvitations)
        .where(
          and(eq(teamInvitations.projectId, input.projectId), eq(teamInvitations.id, input.invitationId)),
        );
    }
  });
}

/**
 * Uses the code behind an invitation accepted by id (not by the emailed code). Only one of two parallel
 * acceptances can flip `used_at`; an invitation whose code was already used or has expired is refused.
 */
export async function useInvitationCode(db: Database, invitation: TeamInvitationRow): Promise<void> {
  if (invitation.expiresAt.getTime() <= Date.now()) throw knownError("VERIFICATION_CODE_EXPIRED");
  if (!(await markCodeUsed(db, invitation.projectId, invitation.codeId))) {
    throw knownError("VERIFICATION_CODE_ALREADY_USED");
  }
}
