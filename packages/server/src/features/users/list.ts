import { and, asc, desc, eq, or, type SQL, sql } from "drizzle-orm";
import type { RenderedConfig } from "../../config/index.ts";
import type { Database } from "../../db/index.ts";
import { isUuid } from "../../fields/ids.ts";
import { StatusError } from "../../http/status-error.ts";
import { contactChannels } from "../contact-channels/schema.ts";
import { oauthAccounts } from "../oauth/schema.ts";
import { teamMembers } from "../teams/schema.ts";
import { LIST_DEFAULT_LIMIT, type ListUsersQuery } from "./requests.ts";
import { type UserRow, users } from "./schema.ts";
import { findUser } from "./service.ts";

/** `%`, `_` and the escape character itself are wildcards in LIKE patterns; the search text is literal. */
function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * Not restricted, by the rule of `restrictedReasonOf` in views.ts minus the anonymous part (filtered separately):
 * not restricted by an admin, and, when the project requires it, a verified primary email.
 */
function notRestricted(config: RenderedConfig): SQL {
  const conditions = [eq(users.restrictedByAdmin, false)];
  if (config.onboarding.requireEmailVerification) {
    conditions.push(
      sql`exists (select 1 from ${contactChannels} where ${contactChannels.userId} = ${users.id} and ${contactChannels.isPrimary} and ${contactChannels.isVerified})`,
    );
  }
  return and(...conditions)!;
}

/**
 * One page of `GET /users` (PROTOCOL.md §3.1). Keyset pagination over (order column, id), both in the index
 * `users_project_*_idx`, so that page 1000 costs what page 1 does. The cursor is the id of the first user of the
 * page (inclusive); its position is read inside the query, at full timestamp precision.
 */
export async function listUsers(
  db: Database,
  projectId: string,
  config: RenderedConfig,
  query: ListUsersQuery,
): Promise<{ rows: UserRow[]; nextCursor: string | null; totalCount?: number }> {
  const limit = query.limit ?? LIST_DEFAULT_LIMIT;
  const descending = query.desc ?? false;
  const orderColumn = query.order_by === "last_active_at" ? users.lastActiveAt : users.signedUpAt;

  const conditions = filterConditions(projectId, config, query);
  // The total of the filter, without the cursor: what the dashboard shows as "N users".
  const totalCount = query.include_total
    ? Number(
        (
          await db
            .select({ count: sql<number>`count(*)` })
            .from(users)
            .where(and(...conditions))
        )[0]?.count ?? 0,
      )
    : undefined;
  if (query.cursor) {
    if (!(await findUser(db, projectId, query.cursor))) {
      throw new StatusError(
        400,
        "Unknown cursor: it must be the next_cursor of a previous page (the id of a user of this project).",
      );
    }
    // A row of two plain values (not a row subquery), so that PostgreSQL can use it as an index bound.
    const column = sql.identifier(orderColumn.name);
    const position = sql`((select c.${column} from ${users} c where c.project_id = ${projectId} and c.id = ${query.cursor}::uuid), ${query.cursor}::uuid)`;
    conditions.push(
      descending
        ? sql`(${orderColumn}, ${users.id}) <= ${position}`
        : sql`(${orderColumn}, ${users.id}) >= ${position}`,
    );
  }

  const direction = descending ? desc : asc;
  const rows = await db
    .select()
    .from(users)
    .where(and(...conditions))
    .orderBy(direction(orderColumn), direction(users.id))
    .limit(limit + 1);
  const next = rows.length > limit ? rows.pop()! : null;
  return { rows, nextCursor: next?.id ?? null, ...(totalCount === undefined ? {} : { totalCount }) };
}

/**
 * The WHERE of a list, cursor aside. Every sub-select is scoped by project, so that it runs on the
 * `(project_id, user_id)` indexes of contact channels and OAuth accounts.
 */
function filterConditions(projectId: string, config: RenderedConfig, query: ListUsersQuery): SQL[] {
  const conditions: SQL[] = [eq(users.projectId, projectId)];
  if (query.only_anonymous) {
    conditions.push(eq(users.isAnonymous, true));
  } else if (!query.include_anonymous) {
    // Anonymous users are always restricted too, so including them includes restricted users.
    conditions.push(eq(users.isAnonymous, false));
    if (!query.include_restricted) conditions.push(notRestricted(config));
  }
  if (query.team_id) {
    conditions.push(
      sql`exists (select 1 from ${teamMembers} where ${teamMembers.projectId} = ${projectId} and ${teamMembers.teamId} = ${query.team_id} and ${teamMembers.userId} = ${users.id})`,
    );
  }
  const search = query.query?.trim();
  if (search) {
    const pattern = `%${escapeLike(search)}%`;
    const matches: SQL[] = [
      sql`${users.displayName} ilike ${pattern}`,
      sql`exists (select 1 from ${contactChannels} where ${contactChannels.userId} = ${users.id} and ${contactChannels.isPrimary} and ${contactChannels.value} ilike ${pattern})`,
    ];
    if (isUuid(search)) matches.push(eq(users.id, search.toLowerCase()));
    conditions.push(or(...matches)!);
  }
  const verifiedPrimaryEmail = sql`exists (select 1 from ${contactChannels} where ${contactChannels.projectId} = ${projectId} and ${contactChannels.userId} = ${users.id} and ${contactChannels.isPrimary} and ${contactChannels.isVerified})`;
  if (query.primary_email_verified !== undefined) {
    conditions.push(query.primary_email_verified ? verifiedPrimaryEmail : sql`not ${verifiedPrimaryEmail}`);
  }
  if (query.restricted_by_admin !== undefined) {
    conditions.push(eq(users.restrictedByAdmin, query.restricted_by_admin));
  }
  if (query.has_mfa !== undefined) {
    conditions.push(
      query.has_mfa
        ? sql`${users.totpSecretEncrypted} is not null`
        : sql`${users.totpSecretEncrypted} is null`,
    );
  }
  switch (query.auth_method) {
    case "password":
      conditions.push(sql`${users.passwordHash} is not null`);
      break;
    case "otp":
      conditions.push(eq(users.otpAuthEnabled, true));
      break;
    case "passkey":
      conditions.push(eq(users.passkeyAuthEnabled, true));
      break;
    case "oauth":
      conditions.push(
        sql`exists (select 1 from ${oauthAccounts} where ${oauthAccounts.projectId} = ${projectId} and ${oauthAccounts.userId} = ${users.id})`,
      );
      break;
    case undefined:
      break;
  }
  return conditions;
}
