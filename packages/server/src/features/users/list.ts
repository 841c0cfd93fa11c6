import { and, asc, desc, eq, inArray, type SQL, sql } from "drizzle-orm";
import { unionAll } from "drizzle-orm/pg-core";
import type { RenderedConfig } from "../../config/index.ts";
import type { Database } from "../../db/index.ts";
import { preparedPerShape, UNNAMED_STATEMENT } from "../../db/prepared-sql.ts";
import { isUuid } from "../../fields/ids.ts";
import { StatusError } from "../../http/status-error.ts";
import { contactChannels } from "../contact-channels/schema.ts";
import { projectCountDays } from "../metrics/schema.ts";
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
 * What a list statement's SQL depends on: which filters are set (not their values), the order, and the kind of
 * search. Each shape is built once (`preparedPerShape`); the values go in as placeholders (`VALUES`).
 */
type ListShape = {
  anonymous: "only" | "include" | "exclude";
  /** Restricted users are left out (by the admin's flag, and unverified emails when the project requires them). */
  notRestricted: null | { requireVerifiedEmail: boolean };
  team: boolean;
  primaryEmailVerified: boolean | null;
  restrictedByAdmin: boolean | null;
  hasMfa: boolean | null;
  authMethod: ListUsersQuery["auth_method"] | null;
  orderBy: "signed_up_at" | "last_active_at";
  descending: boolean;
  cursor: boolean;
  search: null | { emailProbe: boolean; id: boolean };
};

/** The values of a list statement, by name. */
const VALUES = {
  projectId: sql.placeholder("projectId"),
  teamId: sql.placeholder("teamId"),
  cursor: sql.placeholder("cursor"),
  limit: sql.placeholder("limit"),
  pattern: sql.placeholder("pattern"),
  emailProbe: sql.placeholder("emailProbe"),
  id: sql.placeholder("id"),
};

function shapeOf(config: RenderedConfig, query: ListUsersQuery, search: Search | null): ListShape {
  const anonymous = query.only_anonymous ? "only" : query.include_anonymous ? "include" : "exclude";
  return {
    anonymous,
    // Anonymous users are always restricted too, so including them includes restricted users.
    notRestricted:
      anonymous === "exclude" && !query.include_restricted
        ? { requireVerifiedEmail: config.onboarding.requireEmailVerification }
        : null,
    team: query.team_id !== undefined,
    primaryEmailVerified: query.primary_email_verified ?? null,
    restrictedByAdmin: query.restricted_by_admin ?? null,
    hasMfa: query.has_mfa ?? null,
    authMethod: query.auth_method ?? null,
    orderBy: query.order_by === "last_active_at" ? "last_active_at" : "signed_up_at",
    descending: query.desc ?? false,
    cursor: query.cursor !== undefined,
    search: search ? { emailProbe: search.emailProbe !== null, id: search.id !== null } : null,
  };
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
  exactCountLimit = EXACT_COUNT_LIMIT,
): Promise<{
  rows: UserRow[];
  relations: UserRelations;
  nextCursor: string | null;
  total?: { count: number; isEstimate: boolean };
}> {
  const limit = query.limit ?? LIST_DEFAULT_LIMIT;
  const search = searchOf(query.query);
  const shape = shapeOf(config, query, search);
  // Every placeholder a shape may use; those it does not use are ignored.
  const values = {
    projectId,
    teamId: query.team_id ?? null,
    cursor: query.cursor ?? null,
    limit: limit + 1,
    pattern: search?.pattern ?? null,
    emailProbe: search?.emailProbe ?? null,
    id: search?.id ?? null,
  };
  // The total of the filter, without the cursor: what the dashboard shows as "N users" (or "about N").
  const total = query.include_total
    ? await countOfFilter(db, projectId, shape, { ...values, countLimit: exactCountLimit + 1 })
    : undefined;
  if (query.cursor && !(await findUser(db, projectId, query.cursor))) {
    throw new StatusError(
      400,
      "Unknown cursor: it must be the next_cursor of a previous page (the id of a user of this project).",
    );
  }
  // The page and what each user's view needs, in one statement.
  const read = await pageStatement(db, shape).execute(values);
  const next = read.length > limit ? read.pop()! : null;
  return {
    rows: read.map((row) => row.user),
    relations: relationsOfRows(read),
    nextCursor: next?.user.id ?? null,
    ...(total === undefined ? {} : { total }),
  };
}

/**
 * The page: users with their relation columns, in order, one more than the limit (whether a next page exists).
 * Unnamed, so planned for each call's values: planning is about a millisecond of a search, but a plan made once for
 * any pattern (a named statement's generic plan) read the trigram indexes in full for short or common ones. At
 * 200,000 users "a" took 1.4-2.1 s that way against ~1 ms planned for itself, and "mi" 0.7 s against 2 ms.
 */
const pageStatement = preparedPerShape((db: Database, shape: ListShape) => {
  const conditions = filterConditions(shape);
  const order = orderOf(shape);
  return db
    .select({ user: users, ...userRelationColumns })
    .from(users)
    .where(
      shape.search
        ? and(
            eq(users.projectId, VALUES.projectId),
            inArray(users.id, searchBranches(db, shape.search, conditions, { order, limit: VALUES.limit })),
          )
        : and(...conditions),
    )
    .orderBy(...order)
    .limit(VALUES.limit)
    .prepare(UNNAMED_STATEMENT);
});

/**
 * Past this many users, a filter's total is an estimate (`countOfFilter`): an exact count reads every match, which
 * at 200,000 users is most of a second for some filters.
 */
export const EXACT_COUNT_LIMIT = 10_000;

/**
 * How many users the filter (and search) selects, whatever the page: exact up to `countLimit - 1`, else estimated.
 * The count reads at most `countLimit` matches, oldest sign-up first; past the limit, the share of the project's
 * users (of the same anonymity) signed up by the last day read, from the totals' rollup (metrics/schema.ts), scales
 * it up: the filter is taken to match as often among later sign-ups as among earlier ones.
 */
async function countOfFilter(
  db: Database,
  projectId: string,
  shape: ListShape,
  values: Record<string, unknown> & { countLimit: number },
): Promise<{ count: number; isEstimate: boolean }> {
  const [read] = await countStatement(db, { ...shape, cursor: false }).execute(values);
  const count = Number(read?.count ?? 0);
  if (count < values.countLimit || !read?.lastDay) return { count, isEstimate: false };
  const counted =
    shape.anonymous === "only"
      ? projectCountDays.anonymousUsers
      : shape.anonymous === "include"
        ? projectCountDays.users
        : sql`${projectCountDays.users} - ${projectCountDays.anonymousUsers}`;
  const [share] = await db
    .select({
      before: sql<number>`coalesce(sum(${counted}) filter (where ${projectCountDays.day} < ${read.lastDay}), 0)::int`,
      lastDay: sql<number>`coalesce(sum(${counted}) filter (where ${projectCountDays.day} = ${read.lastDay}), 0)::int`,
      all: sql<number>`coalesce(sum(${counted}), 0)::int`,
    })
    .from(projectCountDays)
    .where(eq(projectCountDays.projectId, projectId));
  // The count stopped somewhere in its last day: taken as halfway through that day's sign-ups.
  const readUpTo = Number(share?.before ?? 0) + Number(share?.lastDay ?? 0) / 2;
  const all = Number(share?.all ?? 0);
  const scaled = readUpTo > 0 ? Math.round((count * all) / readUpTo) : count;
  // No filter matches more users than there are, nor fewer than it was seen to.
  return { count: Math.max(count, Math.min(all, scaled)), isEstimate: true };
}

const countStatement = preparedPerShape((db: Database, shape: ListShape) => {
  const conditions = filterConditions(shape);
  const matches = db
    .select({ signedUpAt: users.signedUpAt })
    .from(users)
    .where(
      shape.search
        ? and(
            eq(users.projectId, VALUES.projectId),
            inArray(users.id, searchBranches(db, shape.search, conditions)),
          )
        : and(...conditions),
    )
    .orderBy(asc(users.signedUpAt), asc(users.id))
    .limit(sql.placeholder("countLimit"))
    .as("matches");
  return db
    .select({
      count: sql<number>`count(*)::int`,
      lastDay: sql<string | null>`to_char(max(${matches.signedUpAt}) at time zone 'UTC', 'YYYY-MM-DD')`,
    })
    .from(matches)
    .prepare(UNNAMED_STATEMENT);
});

function orderOf(shape: ListShape): SQL[] {
  const direction = shape.descending ? desc : asc;
  const column = shape.orderBy === "last_active_at" ? users.lastActiveAt : users.signedUpAt;
  return [direction(column), direction(users.id)];
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
  search: NonNullable<ListShape["search"]>,
  where: SQL[],
  page?: { order: SQL[]; limit: typeof VALUES.limit },
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
    ? sql`${contactChannels.value} ilike ${VALUES.emailProbe} and lower(${contactChannels.value}) like lower(${VALUES.pattern})`
    : sql`${contactChannels.value} ilike ${VALUES.pattern}`;
  const branches = [
    branch(sql`${users.displayName} ilike ${VALUES.pattern}`),
    branch(
      sql`${users.id} in (select ${contactChannels.userId} from ${contactChannels} where ${contactChannels.projectId} = ${VALUES.projectId} and ${contactChannels.isPrimary} and ${emailMatch})`,
    ),
    ...(search.id ? [branch(eq(users.id, VALUES.id))] : []),
  ] as const;
  return unionAll(branches[0], branches[1], ...branches.slice(2));
}

/**
 * The primary channel is verified: the users row's flag (kept by a trigger, schema.ts), which the partial indexes
 * `users_project_primary_(un)verified_idx` hold, so a page or a total reads only the users on that side.
 */
const hasVerifiedPrimaryEmail = sql`${users.hasVerifiedPrimaryEmail}`;

/**
 * The WHERE of a list, search aside. Every sub-select is scoped by project, so that it runs on the
 * `(project_id, user_id)` indexes of contact channels and OAuth accounts.
 */
function filterConditions(shape: ListShape): SQL[] {
  const conditions: SQL[] = [eq(users.projectId, VALUES.projectId)];
  if (shape.anonymous === "only") conditions.push(eq(users.isAnonymous, true));
  if (shape.anonymous === "exclude") conditions.push(eq(users.isAnonymous, false));
  if (shape.notRestricted) {
    // Not restricted, by the rule of `restrictedReasonOf` in views.ts minus the anonymous part (filtered above).
    conditions.push(eq(users.restrictedByAdmin, false));
    if (shape.notRestricted.requireVerifiedEmail) conditions.push(hasVerifiedPrimaryEmail);
  }
  if (shape.team) {
    conditions.push(
      sql`exists (select 1 from ${teamMembers} where ${teamMembers.projectId} = ${VALUES.projectId} and ${teamMembers.teamId} = ${VALUES.teamId} and ${teamMembers.userId} = ${users.id})`,
    );
  }
  if (shape.primaryEmailVerified !== null) {
    conditions.push(
      shape.primaryEmailVerified ? hasVerifiedPrimaryEmail : sql`not ${users.hasVerifiedPrimaryEmail}`,
    );
  }
  if (shape.restrictedByAdmin !== null) conditions.push(eq(users.restrictedByAdmin, shape.restrictedByAdmin));
  if (shape.hasMfa !== null) {
    conditions.push(
      shape.hasMfa
        ? sql`${users.totpSecretEncrypted} is not null`
        : sql`${users.totpSecretEncrypted} is null`,
    );
  }
  switch (shape.authMethod) {
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
        sql`exists (select 1 from ${oauthAccounts} where ${oauthAccounts.projectId} = ${VALUES.projectId} and ${oauthAccounts.userId} = ${users.id})`,
      );
      break;
    case null:
    case undefined:
      break;
  }
  if (shape.cursor) {
    // A row of two plain values (not a row subquery), so that PostgreSQL can use it as an index bound.
    const column = shape.orderBy === "last_active_at" ? users.lastActiveAt : users.signedUpAt;
    const position = sql`((select c.${sql.identifier(column.name)} from ${users} c where c.project_id = ${VALUES.projectId} and c.id = ${VALUES.cursor}::uuid), ${VALUES.cursor}::uuid)`;
    conditions.push(
      shape.descending
        ? sql`(${column}, ${users.id}) <= ${position}`
        : sql`(${column}, ${users.id}) >= ${position}`,
    );
  }
  return conditions;
}
