/**
 * The failed-emails digest's read (cron-routes.ts): every project's emails that failed since a time, with the
 * primary emails of the project's owners (the members of its owner team in the internal project). Projects without
 * an owner to tell are left out, as in the reference. Two statements whatever the number of projects.
 */
import { and, asc, eq, gte, inArray, isNotNull } from "drizzle-orm";
import type { Database } from "../../db/index.ts";
import { contactChannels } from "../contact-channels/schema.ts";
import { projects } from "../projects/schema.ts";
import { teamMembers } from "../teams/schema.ts";
import { sentEmails } from "./schema.ts";

const INTERNAL_PROJECT_ID = "internal";

export type FailedEmailsDigest = {
  projectId: string;
  projectName: string;
  emails: { subject: string; to: string[] }[];
  ownerEmails: string[];
};

export async function failedEmailsByProject(db: Database, since: Date): Promise<FailedEmailsDigest[]> {
  const failed = await db
    .select({
      projectId: sentEmails.projectId,
      projectName: projects.displayName,
      ownerTeamId: projects.ownerTeamId,
      subject: sentEmails.subject,
      to: sentEmails.to,
    })
    .from(sentEmails)
    .innerJoin(projects, eq(projects.id, sentEmails.projectId))
    .where(
      and(eq(sentEmails.status, "failed"), isNotNull(sentEmails.failedAt), gte(sentEmails.failedAt, since)),
    )
    .orderBy(asc(sentEmails.projectId), asc(sentEmails.failedAt));
  const teamIds = [...new Set(failed.flatMap((row) => (row.ownerTeamId ? [row.ownerTeamId] : [])))];
  const owners =
    teamIds.length === 0
      ? []
      : await db
          .select({ teamId: teamMembers.teamId, email: contactChannels.value })
          .from(teamMembers)
          .innerJoin(
            contactChannels,
            and(
              eq(contactChannels.projectId, INTERNAL_PROJECT_ID),
              eq(contactChannels.userId, teamMembers.userId),
              eq(contactChannels.type, "email"),
              eq(contactChannels.isPrimary, true),
            ),
          )
          .where(and(eq(teamMembers.projectId, INTERNAL_PROJECT_ID), inArray(teamMembers.teamId, teamIds)))
          .orderBy(asc(contactChannels.value));
  const digests = new Map<string, FailedEmailsDigest>();
  for (const row of failed) {
    const ownerEmails = owners
      .filter((owner) => owner.teamId === row.ownerTeamId)
      .map((owner) => owner.email);
    if (ownerEmails.length === 0) continue;
    let digest = digests.get(row.projectId);
    if (!digest) {
      digest = { projectId: row.projectId, projectName: row.projectName, emails: [], ownerEmails };
      digests.set(row.projectId, digest);
    }
    digest.emails.push({ subject: row.subject, to: row.to });
  }
  return [...digests.values()];
}
