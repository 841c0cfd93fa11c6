/**
 * A user and everything its view needs, in one statement: the hot path of every request with an access token
 * (request-auth.ts) and of `GET /users/me`. The three relations (primary email, selected team, OAuth accounts) are
 * correlated sub-queries on their (project_id, user_id) indexes, encoded as JSON, so the database answers in one
 * round trip. Prepared once per database: the query is built by Drizzle once, and PostgreSQL plans it once per
 * connection. `loadUserRelations` asks the same for many users at once.
 */
import { and, eq, inArray, sql } from "drizzle-orm";
import type { Database } from "../../db/index.ts";
import { jsonRowOf, parseJsonRow } from "../../db/json-rows.ts";
import { preparedPerDatabase, sqlRenderedOnce } from "../../db/prepared-sql.ts";
import { isUuid } from "../../fields/ids.ts";
import { type ContactChannelRow, contactChannels } from "../contact-channels/schema.ts";
import { oauthAccounts } from "../oauth/schema.ts";
import { type TeamRow, teams } from "../teams/schema.ts";
import { type UserRow, users } from "./schema.ts";

type OAuthRef = { id: string; account_id: string; email: string | null };

/** Everything a user view needs beyond the user row: primary emails by user id, teams by id, OAuth refs by user id. */
export type UserRelations = {
  primaryChannel: Map<string, ContactChannelRow>;
  selectedTeam: Map<string, TeamRow>;
  oauthProviders: Map<string, OAuthRef[]>;
};

/**
 * What `userView` needs beyond the row, as three JSON columns of any select from `users` (each a correlated
 * sub-query on its (project_id, user_id) index). The sub-queries name the outer row as `users.…` in plain SQL: in a
 * select list Drizzle writes columns without their table, which inside a sub-query would bind to the inner table's
 * column of the same name. So the select must read `users` under that name, not an alias. Each is rendered to SQL
 * text once (`sqlRenderedOnce`), as every user list and search builds its query around them.
 */
export const userRelationColumns = {
  primaryChannel: sqlRenderedOnce(sql<unknown>`(
    select ${jsonRowOf(contactChannels, "c")} from ${contactChannels} c
    where c.project_id = users.project_id and c.user_id = users.id and c.is_primary
    limit 1)`),
  selectedTeam: sqlRenderedOnce(sql<unknown>`(
    select ${jsonRowOf(teams, "t")} from ${teams} t
    where t.project_id = users.project_id and t.id = users.selected_team_id)`),
  oauthProviders: sqlRenderedOnce(sql<OAuthRef[] | string | null>`(
    select json_agg(json_build_object('id', o.provider_config_id, 'account_id', o.provider_account_id,
      'email', o.email) order by o.created_at, o.id)
    from ${oauthAccounts} o where o.project_id = users.project_id and o.user_id = users.id)`),
};

/** A row of a select of `{ user: users, ...userRelationColumns }`. */
export type UserWithRelationColumns = {
  user: UserRow;
  primaryChannel: unknown;
  selectedTeam: unknown;
  oauthProviders: OAuthRef[] | string | null;
};

/** The relations of rows read with `userRelationColumns`, as `userView` takes them. */
export function relationsOfRows(
  rows: readonly (Omit<UserWithRelationColumns, "user"> & { user: Pick<UserRow, "id"> })[],
): UserRelations {
  const relations: UserRelations = {
    primaryChannel: new Map(),
    selectedTeam: new Map(),
    oauthProviders: new Map(),
  };
  for (const row of rows) {
    const primary = parseJsonRow(contactChannels, row.primaryChannel);
    if (primary) relations.primaryChannel.set(row.user.id, primary);
    const team = parseJsonRow(teams, row.selectedTeam);
    if (team) relations.selectedTeam.set(team.id, team);
    const oauth =
      typeof row.oauthProviders === "string" ? JSON.parse(row.oauthProviders) : row.oauthProviders;
    relations.oauthProviders.set(row.user.id, (oauth as OAuthRef[] | null) ?? []);
  }
  return relations;
}

const prepared = preparedPerDatabase((db: Database) =>
  db
    .select({ user: users, ...userRelationColumns })
    .from(users)
    .where(and(eq(users.projectId, sql.placeholder("projectId")), eq(users.id, sql.placeholder("userId"))))
    .limit(1)
    .prepare("user_with_relations"),
);

/** The user with the relations `userView` needs, or null (no such user in the project, or not a user id). */
export async function findUserWithRelations(
  db: Database,
  projectId: string,
  userId: string,
): Promise<{ user: UserRow; relations: UserRelations } | null> {
  if (!isUuid(userId)) return null;
  const [row] = await prepared(db).execute({ projectId, userId });
  return row ? { user: row.user, relations: relationsOfRows([row]) } : null;
}

/**
 * The relations of users already read (created or updated in a transaction, a page of team members), in one
 * statement. One statement also keeps a transaction's connection to one query at a time: the three queries this
 * once sent side by side were queued by the driver on the transaction's single connection, which pg deprecates.
 */
export async function loadUserRelations(
  db: Database,
  projectId: string,
  rows: readonly UserRow[],
): Promise<UserRelations> {
  if (rows.length === 0) return relationsOfRows([]);
  // The caller holds the rows: only their ids come back, beside the relation columns.
  const read = await db
    .select({ user: { id: users.id }, ...userRelationColumns })
    .from(users)
    .where(
      and(
        eq(users.projectId, projectId),
        inArray(
          users.id,
          rows.map((row) => row.id),
        ),
      ),
    );
  return relationsOfRows(read);
}
