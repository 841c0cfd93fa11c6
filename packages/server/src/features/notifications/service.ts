import { knownError } from "@gatehouse/shared";
import { and, eq, inArray, sql } from "drizzle-orm";
import type { Database } from "../../db/index.ts";
import { StatusError } from "../../http/status-error.ts";
import { findUser } from "../users/service.ts";
import { findCategoryById, NOTIFICATION_CATEGORIES, type NotificationCategory } from "./categories.ts";
import { notificationPreferences } from "./schema.ts";

export type NotificationPreferenceItem = {
  notification_category_id: string;
  notification_category_name: string;
  enabled: boolean;
  can_disable: boolean;
};

function item(category: NotificationCategory, stored: boolean | undefined): NotificationPreferenceItem {
  return {
    notification_category_id: category.id,
    notification_category_name: category.name,
    // A category that cannot be disabled is on, whatever was stored.
    enabled: category.canDisable ? (stored ?? category.enabledByDefault) : true,
    can_disable: category.canDisable,
  };
}

async function assertUser(db: Database, projectId: string, userId: string): Promise<void> {
  if (!(await findUser(db, projectId, userId))) throw knownError("USER_NOT_FOUND");
}

export async function listNotificationPreferences(
  db: Database,
  projectId: string,
  userId: string,
): Promise<NotificationPreferenceItem[]> {
  await assertUser(db, projectId, userId);
  const rows = await db
    .select({ categoryId: notificationPreferences.categoryId, enabled: notificationPreferences.enabled })
    .from(notificationPreferences)
    .where(and(eq(notificationPreferences.projectId, projectId), eq(notificationPreferences.userId, userId)));
  const stored = new Map(rows.map((row) => [row.categoryId, row.enabled]));
  return NOTIFICATION_CATEGORIES.map((category) => item(category, stored.get(category.id)));
}

export async function setNotificationPreference(
  db: Database,
  projectId: string,
  userId: string,
  categoryId: string,
  enabled: boolean,
): Promise<NotificationPreferenceItem> {
  const category = findCategoryById(categoryId);
  if (!category) throw new StatusError(404, `Notification category ${categoryId} not found.`);
  await assertUser(db, projectId, userId);
  if (!category.canDisable && !enabled) {
    throw new StatusError(400, `The ${category.name} notification category cannot be disabled.`);
  }
  await db
    .insert(notificationPreferences)
    .values({ projectId, userId, categoryId: category.id, enabled })
    .onConflictDoUpdate({
      target: [notificationPreferences.userId, notificationPreferences.categoryId],
      set: { enabled, updatedAt: sql`now()` },
    });
  return item(category, enabled);
}

/**
 * Of `userIds`, those who accept emails of `category` (one query for any number of users), for senders of
 * non-transactional email.
 */
export async function usersAcceptingCategory(
  db: Database,
  projectId: string,
  userIds: readonly string[],
  category: NotificationCategory,
): Promise<Set<string>> {
  if (!category.canDisable || userIds.length === 0) return new Set(userIds);
  const rows = await db
    .select({ userId: notificationPreferences.userId, enabled: notificationPreferences.enabled })
    .from(notificationPreferences)
    .where(
      and(
        eq(notificationPreferences.projectId, projectId),
        eq(notificationPreferences.categoryId, category.id),
        inArray(notificationPreferences.userId, [...userIds]),
      ),
    );
  const stored = new Map(rows.map((row) => [row.userId, row.enabled]));
  return new Set(userIds.filter((id) => stored.get(id) ?? category.enabledByDefault));
}
