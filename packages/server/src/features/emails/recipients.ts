/**
 * Who an outbox row goes to, decided when it is rendered (PROTOCOL-EXTRA §1.7-§1.8): the user's current primary
 * email, whether the user still exists, and whether they still accept the email's notification category.
 */
import { and, eq, inArray } from "drizzle-orm";
import type { Database } from "../../db/index.ts";
import { contactChannels } from "../contact-channels/schema.ts";
import type { NotificationCategory } from "../notifications/categories.ts";
import { usersAcceptingCategory } from "../notifications/service.ts";
import { users } from "../users/schema.ts";
import type { EmailRecipient, EmailSkipReason } from "./schema.ts";

export type RecipientUser = { id: string; displayName: string | null; primaryEmail: string | null };

export function recipientUserId(recipient: EmailRecipient): string | null {
  return recipient.type === "custom-emails" ? null : recipient.user_id;
}

/** The users the rows name, with their primary emails: one query for a whole batch. */
export async function loadRecipientUsers(
  db: Database,
  projectId: string,
  recipients: readonly EmailRecipient[],
): Promise<Map<string, RecipientUser>> {
  const ids = [...new Set(recipients.map(recipientUserId).filter((id): id is string => id !== null))];
  if (ids.length === 0) return new Map();
  const rows = await db
    .select({ id: users.id, displayName: users.displayName, primaryEmail: contactChannels.value })
    .from(users)
    .leftJoin(
      contactChannels,
      and(
        eq(contactChannels.projectId, users.projectId),
        eq(contactChannels.userId, users.id),
        eq(contactChannels.isPrimary, true),
      ),
    )
    .where(and(eq(users.projectId, projectId), inArray(users.id, ids)));
  return new Map(rows.map((row) => [row.id, row]));
}

export type Addressing = { to: string[]; user: RecipientUser | null } | { skip: EmailSkipReason };

/** The addresses a row goes to, or why it is skipped. */
export function addressesFor(recipient: EmailRecipient, known: Map<string, RecipientUser>): Addressing {
  if (recipient.type === "custom-emails") {
    return recipient.emails.length > 0 ? { to: recipient.emails, user: null } : { skip: "NO_EMAIL_PROVIDED" };
  }
  const user = known.get(recipient.user_id);
  if (!user) return { skip: "USER_ACCOUNT_DELETED" };
  if (recipient.type === "user-custom-emails" && recipient.emails.length > 0) {
    return { to: recipient.emails, user };
  }
  return user.primaryEmail ? { to: [user.primaryEmail], user } : { skip: "USER_HAS_NO_PRIMARY_EMAIL" };
}

/** Of the users, those who turned `category` off (always none for Transactional). */
export async function usersUnsubscribedFrom(
  db: Database,
  projectId: string,
  userIds: readonly string[],
  category: NotificationCategory,
): Promise<Set<string>> {
  const accepting = await usersAcceptingCategory(db, projectId, userIds, category);
  return new Set(userIds.filter((id) => !accepting.has(id)));
}
