/**
 * `GET /internal/sign-up-rules-stats` (PROTOCOL-EXTRA §6.3): how often each rule matched, from the
 * `$sign-up-rule-trigger` events. `total_count`, `total_triggers` and `triggers_by_action` cover the last 48 hours
 * (the hour now running and the 47 before it), which `hourly_counts` splits by hour, oldest first; `all_time_count`
 * is every trigger of the rule. `rule_failures` does the same for the `$sign-up-rule-error` events of conditions that
 * failed to run (apply.ts), with the latest failure's error and the sign-up input that caused it; `failing` says
 * whether that failure is of the rule's current condition (an edited rule starts afresh). The stats are for the
 * project's owners only (an admin route): the input holds a sign-up's address and country. All three queries are
 * range scans of `events_project_type_time_idx`.
 */
import type { WireSignUpRuleFailures, WireSignUpRulesStats } from "@gatehouse/shared";
import { sql } from "drizzle-orm";
import type { Database } from "../../db/index.ts";
import { SIGN_UP_RULE_ERROR_EVENT, SIGN_UP_RULE_TRIGGER_EVENT } from "./apply.ts";
import {
  orderedSignUpRules,
  SIGN_UP_RULE_ACTIONS,
  type SignUpRuleActionType,
  type SignUpRulesConfig,
} from "./rules.ts";

export const ANALYTICS_HOURS = 48;
const HOUR_MS = 3_600_000;

export type SignUpRulesStats = WireSignUpRulesStats;

type FailureRow = {
  rule_id: string | null;
  occurred_at: Date | string;
  data: Record<string, unknown>;
  country_code: string | null;
  all_time_count: number;
  total_count: number;
};

const text = (value: unknown) => (typeof value === "string" ? value : "");

/** Each rule's failures: counts, and the latest one with its input. */
async function loadSignUpRuleFailures(
  db: Database,
  projectId: string,
  rules: SignUpRulesConfig,
  since: string,
): Promise<WireSignUpRuleFailures[]> {
  const { rows } = (await db.execute(sql`
    select distinct on (e.data->>'rule_id') e.data->>'rule_id' as rule_id, e.occurred_at, e.data, e.country_code,
      (count(*) over rule_events)::int as all_time_count,
      (count(*) filter (where e.occurred_at >= ${since}::timestamptz) over rule_events)::int as total_count
    from events e
    where e.project_id = ${projectId} and e.type = ${SIGN_UP_RULE_ERROR_EVENT}
    window rule_events as (partition by e.data->>'rule_id')
    order by e.data->>'rule_id', e.occurred_at desc, e.seq desc
  `)) as Rows<FailureRow>;
  const conditions = new Map(orderedSignUpRules(rules).map((rule) => [rule.id, rule.condition ?? ""]));
  return rows.map((row) => {
    const ruleId = row.rule_id ?? "";
    const condition = text(row.data.condition);
    return {
      rule_id: ruleId,
      failing: conditions.get(ruleId) === condition,
      total_count: Number(row.total_count),
      all_time_count: Number(row.all_time_count),
      last_failure: {
        occurred_at: new Date(row.occurred_at).toISOString(),
        error: text(row.data.error),
        condition,
        input: {
          email: text(row.data.email),
          country_code: row.country_code,
          auth_method: text(row.data.auth_method),
          oauth_provider: text(row.data.oauth_provider),
        },
      },
    };
  });
}

type Rows<T> = { rows: T[] };

export async function loadSignUpRulesStats(
  db: Database,
  projectId: string,
  rules: SignUpRulesConfig,
  now = new Date(),
): Promise<SignUpRulesStats> {
  const currentHour = Math.floor(now.getTime() / HOUR_MS);
  const firstHour = currentHour - (ANALYTICS_HOURS - 1);
  const since = new Date(firstHour * HOUR_MS).toISOString();

  const [recent, allTime, failures] = await Promise.all([
    db.execute(sql`
      select e.data->>'rule_id' as rule_id, e.data->>'action' as action,
        floor(extract(epoch from e.occurred_at) / 3600)::int as hour, count(*)::int as count
      from events e
      where e.project_id = ${projectId} and e.type = ${SIGN_UP_RULE_TRIGGER_EVENT}
        and e.occurred_at >= ${since}::timestamptz
      group by 1, 2, 3
    `) as Promise<Rows<{ rule_id: string | null; action: string | null; hour: number; count: number }>>,
    db.execute(sql`
      select e.data->>'rule_id' as rule_id, count(*)::int as count
      from events e
      where e.project_id = ${projectId} and e.type = ${SIGN_UP_RULE_TRIGGER_EVENT}
      group by 1
    `) as Promise<Rows<{ rule_id: string | null; count: number }>>,
    loadSignUpRuleFailures(db, projectId, rules, since),
  ]);

  const byAction = Object.fromEntries(SIGN_UP_RULE_ACTIONS.map((action) => [action, 0])) as Record<
    SignUpRuleActionType,
    number
  >;
  const hourlyByRule = new Map<string, Map<number, number>>();
  let totalTriggers = 0;
  for (const row of recent.rows) {
    const count = Number(row.count);
    const hour = Number(row.hour);
    if (hour > currentHour) continue;
    totalTriggers += count;
    if (row.action && row.action in byAction) byAction[row.action as SignUpRuleActionType] += count;
    const ruleId = row.rule_id ?? "";
    const hours = hourlyByRule.get(ruleId) ?? new Map<number, number>();
    hours.set(hour, (hours.get(hour) ?? 0) + count);
    hourlyByRule.set(ruleId, hours);
  }

  const hourKeys = Array.from({ length: ANALYTICS_HOURS }, (_, index) => firstHour + index);
  const ruleTriggers = allTime.rows
    .map((row) => {
      const ruleId = row.rule_id ?? "";
      const hours = hourlyByRule.get(ruleId) ?? new Map<number, number>();
      const hourlyCounts = hourKeys.map((hour) => ({
        hour: new Date(hour * HOUR_MS).toISOString(),
        count: hours.get(hour) ?? 0,
      }));
      return {
        rule_id: ruleId,
        total_count: hourlyCounts.reduce((sum, entry) => sum + entry.count, 0),
        all_time_count: Number(row.count),
        hourly_counts: hourlyCounts,
      };
    })
    .sort((a, b) => (a.rule_id < b.rule_id ? -1 : a.rule_id > b.rule_id ? 1 : 0));

  return {
    rule_triggers: ruleTriggers,
    analytics_hours: ANALYTICS_HOURS,
    total_triggers: totalTriggers,
    triggers_by_action: byAction,
    rule_failures: failures,
  };
}
