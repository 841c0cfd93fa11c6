/**
 * A user and everything its view needs, in one statement: the hot path of every request with an access token
 * (request-auth.ts) and of `GET /users/me`. The three relations (primary email, selected team, OAuth accounts) are
 * correlated sub-queries on their (project_id, user_id) indexes, encoded as JSON, so the database answers in one
 * round trip what `loadUserRelations` asks in three. Prepared once per database: the query is built by Drizzle
 * once, and PostgreSQL plans it once per connection.
 */
import { and, eq, sql } from "drizzle-orm";
import type { Database } from "../../db/index.ts";
import { jsonRowOf, parseJsonRow } from "../../db/json-rows.ts";
import { isUuid } from "../../fields/ids.ts";
import { contactChannels } from "../contact-channels/schema.ts";
import { oauthAccounts } from "../oauth/schema.ts";
import { teams } from "../teams/schema.ts";
import { type UserRow, users } from "./schema.ts";
import type { UserRelations } from "./views.ts";

type OAuthRef = { id: string; account_id: string; email: string | null };

// The sub-queries name the outer row as `users.…` in plain SQL: in a select list Drizzle writes columns without
// their table, which inside a sub-query would bind to the inner table's column of the same name.
function prepare(db: Database) {
  return db
    .select({
      user: users,
      primaryChannel: sql<unknown>`(
        select ${jsonRowOf(contactChannels, "c")} from ${contactChannels} c
        where c.project_id = users.project_id and c.user_id = users.id and c.is_primary
        limit 1)`,
      selectedTeam: sql<unknown>`(
        select ${jsonRowOf(teams, "t")} from ${teams} t
        where t.project_id = users.project_id and t.id = users.selected_team_id)`,
      oauthProviders: sql<OAuthRef[] | string | null>`(
        select json_agg(json_build_object('id', o.provider_config_id, 'account_id', o.provider_account_id,
          'email', o.email) order by o.created_at, o.id)
        from ${oauthAccounts} o where o.project_id = users.project_id and o.user_id = users.id)`,
    })
    .from(users)
    .where(and(eq(users.projectId, sql.placeholder("projectId")), eq(users.id, sql.placeholder("userId"))))
    .limit(1)
    .prepare("user_with_relations");
}

const preparedPerDatabase = new WeakMap<Database, ReturnType<typeof prepare>>();

/** The user with the relations `userView` needs, or null (no such user in the project, or not a user id). */
export async function findUserWithRelations(
  db: Database,
  projectId: string,
  userId: string,
): Promise<{ user: UserRow; relations: UserRelations } | null> {
  if (!isUuid(userId)) return null;
  let statement = preparedPerDatabase.get(db);
  if (!statement) {
    statement = prepare(db);
    preparedPerDatabase.set(db, statement);
  }
  const [row] = await statement.execute({ projectId, userId });
  if (!row) return null;
  const { user } = row;
  const primary = parseJsonRow(contactChannels, row.primaryChannel);
  const team = parseJsonRow(teams, row.selectedTeam);
  const oauth = (
    typeof row.oauthProviders === "string" ? JSON.parse(row.oauthProviders) : row.oauthProviders
  ) as OAuthRef[] | null;
  return {
    user,
    relations: {
      primaryChannel: new Map(primary ? [[user.id, primary]] : []),
      selectedTeam: new Map(team ? [[team.id, team]] : []),
      oauthProviders: new Map([[user.id, oauth ?? []]]),
    },
  };
}
