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
