/** Sign-up rules' stats (PROTOCOL-EXTRA §6.3): what our `GET /internal/sign-up-rules-stats` adds to the reference's. */

/** One rule whose condition failed to run on real sign-ups (each failure counted as no match). */
export type WireSignUpRuleFailures = {
  rule_id: string;
  /** Whether the latest failure is of the rule's condition as it is now: the rule is failing. */
  failing: boolean;
  /** Failures in the last `analytics_hours` hours. */
  total_count: number;
  all_time_count: number;
  last_failure: {
    occurred_at: string;
    error: string;
    /** The condition that failed, as it was then. */
    condition: string;
    /** The sign-up it failed on; for the project's owners only. */
    input: { email: string; country_code: string | null; auth_method: string; oauth_provider: string };
  };
};

/** What a rule does when its condition matches. */
export type WireSignUpRuleActionType = "allow" | "reject" | "restrict" | "log";

/** `GET /internal/sign-up-rules-stats`. */
export type WireSignUpRulesStats = {
  rule_triggers: {
    rule_id: string;
    /** Triggers in the last `analytics_hours` hours. */
    total_count: number;
    all_time_count: number;
    /** One entry per hour, oldest first, ending with the current hour. */
    hourly_counts: { hour: string; count: number }[];
  }[];
  analytics_hours: number;
  total_triggers: number;
  triggers_by_action: Record<WireSignUpRuleActionType, number>;
  /** Rules whose condition failed to run on a real sign-up (which counted as no match), one entry per rule. */
  rule_failures: WireSignUpRuleFailures[];
};
