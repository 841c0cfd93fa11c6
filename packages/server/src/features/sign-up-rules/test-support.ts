/** Helpers of the sign-up rules tests: rules as config, the trigger events, and what a project holds. */
import { and, asc, count, eq } from "drizzle-orm";
import type { TestProject, TestServer } from "../../testing/harness.ts";
import { contactChannels } from "../contact-channels/schema.ts";
import { events } from "../events/schema.ts";
import { oauthAccounts } from "../oauth/schema.ts";
import { teams } from "../teams/schema.ts";
import { users } from "../users/schema.ts";
import { SIGN_UP_RULE_TRIGGER_EVENT } from "./apply.ts";

export type RuleInput = {
  condition?: string;
  action: "allow" | "reject" | "restrict" | "log";
  priority?: number;
  enabled?: boolean;
  displayName?: string;
  message?: string;
};

/** Sets the project's rules (and default action) through the admin config API, as the dashboard does. */
export async function configureRules(
  project: TestProject,
  rules: Record<string, RuleInput>,
  defaultAction?: "allow" | "reject",
): Promise<void> {
  const override: Record<string, unknown> = {};
  for (const [id, rule] of Object.entries(rules)) {
    override[`auth.signUpRules.${id}`] = {
      enabled: rule.enabled ?? true,
      priority: rule.priority ?? 0,
      ...(rule.condition === undefined ? {} : { condition: rule.condition }),
      ...(rule.displayName === undefined ? {} : { displayName: rule.displayName }),
      action: { type: rule.action, ...(rule.message === undefined ? {} : { message: rule.message }) },
    };
  }
  if (defaultAction) override["auth.signUpRulesDefaultAction"] = defaultAction;
  await project.configure(override);
}

/** The project's `$sign-up-rule-trigger` events, oldest first, once the activity buffer is written. */
export async function triggerEvents(server: Pick<TestServer, "deps">, projectId: string) {
  await server.deps.activity.flush();
  return server.deps.db
    .select({ data: events.data, userId: events.userId, countryCode: events.countryCode })
    .from(events)
    .where(and(eq(events.projectId, projectId), eq(events.type, SIGN_UP_RULE_TRIGGER_EVENT)))
    .orderBy(asc(events.seq));
}

/** The data of each trigger event the project recorded, oldest first. */
export async function triggeredRules(server: Pick<TestServer, "deps">, projectId: string) {
  return (await triggerEvents(server, projectId)).map((event) => event.data);
}

/** What a trigger event records: the rule, its action, and the sign-up it judged. */
export const triggerData = (
  ruleId: string,
  action: string,
  email: string,
  authMethod: "password" | "otp" | "oauth",
  oauthProvider = "",
) => ({ rule_id: ruleId, action, email, auth_method: authMethod, oauth_provider: oauthProvider });

/** How many users, contact channels, teams and OAuth accounts a project holds: a rejection must add none. */
export async function projectRowCounts(server: Pick<TestServer, "deps">, projectId: string) {
  const { db } = server.deps;
  const countOf = async (
    table: typeof users | typeof contactChannels | typeof teams | typeof oauthAccounts,
  ) => {
    const [row] = await db.select({ n: count() }).from(table).where(eq(table.projectId, projectId));
    return row!.n;
  };
  return {
    users: await countOf(users),
    contactChannels: await countOf(contactChannels),
    teams: await countOf(teams),
    oauthAccounts: await countOf(oauthAccounts),
  };
}

export const NOTHING = { users: 0, contactChannels: 0, teams: 0, oauthAccounts: 0 };
