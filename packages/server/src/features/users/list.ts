import { and, asc, desc, eq, inArray, type SQL, sql } from "drizzle-orm";
import { unionAll } from "drizzle-orm/pg-core";
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
import type { UserRelations } from "./user-with-relations.ts";
import { relationsOfRows, userRelationColumns } from "./user-with-relations.ts";

/** `%`, `_` and the escape character itself are wildcards in LIKE patterns; the search text is literal. */
function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * What `query` matches (PROTOCOL.md §3.1): a case-insensitive substring of the display name or of the primary email,
 * or the whole id. `emailProbe` is a looser pattern the email index is asked with instead of the whole one (see
 * `searchBranches`).
 */
type Search = { pattern: string; emailProbe: string | null; id: string | null };

function searchOf(text: string | undefined): Search | null {
  const search = text?.trim();
  if (!search) return null;
  const at = search.indexOf("@");
  return {
    pattern: `%${escapeLike(search)}%`,
    // With fewer than three characters before the "@" the probe has at most one trigram (the end of a word) and
    // matches a large share of emails: the whole pattern is then the better question to ask the index.
    emailProbe: at >= 3 ? `%${escapeLike(search.slice(0, at + 1))}%` : null,
    id: isUuid(search) ? search.toLowerCase() : null,
  };
}

/**
 * Not restricted, by the rule of `restrictedReasonOf` in views.ts minus the anonymous part (filtered separately):
 * not restricted by an admin, and, when the project requires it, a verified primary email.
 */
function notRestricted(projectId: string, config: RenderedConfig): SQL {
  const conditions = [eq(users.restrictedByAdmin, false)];
  if (config.onboarding.requireEmailVerification) {
    conditions.push(
      sql`exists (select 1 from ${contactChannels} where ${contactChannels.projectId} = ${projectId} and ${contactChannels.userId} = ${users.id} and ${contactChannels.isPrimary} and ${contactChannels.isVerified})`,
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
): Promise<{ rows: UserRow[]; relations: UserRelations; nextCursor: string | null; totalCount?: number }> {
  const limit = query.limit ?? LIST_DEFAULT_LIMIT;
  const descending = query.desc ?? false;
  const orderColumn = query.order_by === "last_active_at" ? users.lastActiveAt : users.signedUpAt;

  const conditions = filterConditions(projectId, config, query);
  const search = searchOf(query.query);
  // The total of the filter, without the cursor: what the dashboard shows as "N users".
  const totalCount = query.include_total
    ? Number(
        (
          await db
            .select({ count: sql<number>`count(*)` })
            .from(users)
            .where(
              search
                ? and(
                    eq(users.projectId, projectId),
                    inArray(users.id, searchBranches(db, projectId, search, conditions)),
                  )
                : and(...conditions),
            )
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
  const order = [direction(orderColumn), direction(users.id)];
  // The page and what each user's view needs, in one statement.
  const read = await db
    .select({ user: users, ...userRelationColumns })
    .from(users)
    .where(
      search
        ? and(
            eq(users.projectId, projectId),
            inArray(users.id, searchBranches(db, projectId, search, conditions, { order, limit: limit + 1 })),
          )
        : and(...conditions),
    )
    .orderBy(...order)
    .limit(limit + 1);
  const next = read.length > limit ? read.pop()! : null;
  return {
    rows: read.map((row) => row.user),
    relations: relationsOfRows(read),
    nextCursor: next?.user.id ?? null,
    ...(totalCount === undefined ? {} : { totalCount }),
  };
}

/**
 * The ids `search` matches among the users `where` selects, as one select per way of matching, so that each can take
 * its own path: the name through `users_project_display_name_trgm_idx`, the email through
 * `contact_channels_project_primary_value_trgm_idx` (both lead with project_id), the id through the primary key. One
 * WHERE with `name ilike … or exists (email ilike …)` can only be evaluated user by user, which was 262 ms for a
 * one-user substring among 200,000 users. With `page`, each select is ordered and cut to the page like the outer
 * one, so the planner may instead walk `users_project_*_idx` in page order when a pattern matches many users (a
 * name shared by one user in 20 stops after ~500 rows rather than sorting 10,000 matches).
 */
function searchBranches(
  db: Database,
  projectId: string,
  search: Search,
  where: SQL[],
  page?: { order: SQL[]; limit: number },
) {
  const branch = (match: SQL) => {
    const select = db
      .select({ id: users.id })
      .from(users)
      .where(and(...where, match));
    return page ? select.orderBy(...page.order).limit(page.limit) : select;
  };
  // Every user of a 200,000-user project shares the domain of ".500@example.com", so its trigrams cost ~17 ms of
  // index reading; the part before the "@" (with the "@", which every match also contains) tells users apart in
  // ~1.5 ms. The whole pattern is then checked on the few rows found: as `lower(value) like lower(pattern)`, which
  // is what ILIKE does in a UTF-8 database, written so that it is not handed to the index too.
  const emailMatch = search.emailProbe
    ? sql`${contactChannels.value} ilike ${search.emailProbe} and lower(${contactChannels.value}) like lower(${search.pattern})`
    : sql`${contactChannels.value} ilike ${search.pattern}`;
  const branches = [
    branch(sql`${users.displayName} ilike ${search.pattern}`),
    branch(
      sql`${users.id} in (select ${contactChannels.userId} from ${contactChannels} where ${contactChannels.projectId} = ${projectId} and ${contactChannels.isPrimary} and ${emailMatch})`,
    ),
    ...(search.id ? [branch(eq(users.id, search.id))] : []),
  ] as const;
  return unionAll(branches[0], branches[1], ...branches.slice(2));
}

/**
 * The WHERE of a list, cursor and search aside. Every sub-select is scoped by project, so that it runs on the
 * `(project_id, user_id)` indexes of contact channels and OAuth accounts.
 */
function filterConditions(projectId: string, config: RenderedConfig, query: ListUsersQuery): SQL[] {
  const conditions: SQL[] = [eq(users.projectId, projectId)];
  if (query.only_anonymous) {
    conditions.push(eq(users.isAnonymous, true));
  } else if (!query.include_anonymous) {
    // Anonymous users are always restricted too, so including them includes restricted users.
    conditions.push(eq(users.isAnonymous, false));
    if (!query.include_restricted) conditions.push(notRestricted(projectId, config));
  }
  if (query.team_id) {
    conditions.push(
      sql`exists (select 1 from ${teamMembers} where ${teamMembers.projectId} = ${projectId} and ${teamMembers.teamId} = ${query.team_id} and ${teamMembers.userId} = ${users.id})`,
    );
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
