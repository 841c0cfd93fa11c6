/**
 * `GET /internal/sign-up-rules-stats` (PROTOCOL-EXTRA §6.3): how often each rule matched, from the
 * `$sign-up-rule-trigger` events. `total_count`, `total_triggers` and `triggers_by_action` cover the last 48 hours
 * (the hour now running and the 47 before it), which `hourly_counts` splits by hour, oldest first; `all_time_count`
 * is every trigger of the rule. Both queries are range scans of `events_project_type_time_idx`.
 */
import { sql } from "drizzle-orm";
import type { Database } from "../../db/index.ts";
import { SIGN_UP_RULE_TRIGGER_EVENT } from "./apply.ts";
import { SIGN_UP_RULE_ACTIONS, type SignUpRuleActionType } from "./rules.ts";

export const ANALYTICS_HOURS = 48;
const HOUR_MS = 3_600_000;

export type SignUpRulesStats = {
  rule_triggers: {
    rule_id: string;
    total_count: number;
    all_time_count: number;
    hourly_counts: { hour: string; count: number }[];
  }[];
  analytics_hours: number;
  total_triggers: number;
  triggers_by_action: Record<SignUpRuleActionType, number>;
};

type Rows<T> = { rows: T[] };

export async function loadSignUpRulesStats(
  db: Database,
  projectId: string,
  now = new Date(),
): Promise<SignUpRulesStats> {
  const currentHour = Math.floor(now.getTime() / HOUR_MS);
  const firstHour = currentHour - (ANALYTICS_HOURS - 1);
  const since = new Date(firstHour * HOUR_MS).toISOString();

  const [recent, allTime] = await Promise.all([
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
  };
}
