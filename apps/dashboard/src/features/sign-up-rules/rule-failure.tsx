import type { SignUpRulesStats } from "@gatehouse/js";
import { Badge } from "../../ui/components.tsx";

/**
 * A rule whose condition failed on a real sign-up: such a failure counts as no match, so the rule silently does
 * nothing for that input. Shows what failed and the sign-up input that broke it, which only the project's owners
 * see (the stats are an admin call). Nothing when the rule's current condition is not failing: failures of a
 * condition since edited do not count (`failing`).
 */
export function RuleFailure(props: { stats: SignUpRulesStats | undefined; ruleId: string }) {
  const failures = props.stats?.rule_failures.find((entry) => entry.rule_id === props.ruleId);
  if (!props.stats || !failures?.failing) return null;
  const last = failures.last_failure;
  const input = [
    last.input.email || "(no email)",
    last.input.country_code,
    last.input.auth_method,
    last.input.oauth_provider,
  ].filter(Boolean);
  return (
    <div className="small" data-testid="rule-failure">
      <Badge tone="danger">Failing</Badge>{" "}
      <span>
        {failures.total_count} in {props.stats.analytics_hours} h · {failures.all_time_count} in all; counted
        as no match.
      </span>
      <div>
        Last on <span className="mono">{input.join(" · ")}</span> at{" "}
        {new Date(last.occurred_at).toLocaleString()}: <span className="mono">{last.error}</span>
      </div>
    </div>
  );
}
