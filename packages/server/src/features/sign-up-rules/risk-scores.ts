/**
 * Sign-up risk scores, 0-100 each (PROTOCOL-EXTRA §6.3's `riskScores.bot` and `riskScores.free_trial_abuse`, stored
 * as the user's `risk_scores.sign_up`). The reference computes them with a private engine; its open-source build
 * answers 0 for every sign-up (PROTOCOL-EXTRA §8.11), and so does Gatehouse by default: a guess from the address's
 * shape is no signal, and a project's rules must not restrict people for having digits in their address unless it
 * chose so. A project that wants a rough input for its rules turns on `gatehouse.signUpRiskHeuristics`; then this
 * small, transparent heuristic looks at the sign-up alone (no history, no network), so the same sign-up always
 * scores the same:
 *
 * | signal                                              | bot | free_trial_abuse |
 * |-----------------------------------------------------|-----|------------------|
 * | bot challenge answered `invalid`                    | +40 |                  |
 * | bot challenge could not be checked (`error`)        | +10 |                  |
 * | address at a known disposable-mail domain           | +30 | +50              |
 * | local part with 5 or more digits (`jdoe83920471@`)  | +20 |                  |
 * | plus-addressed (`jane+trial3@`)                     |     | +20              |
 * | dots in a Gmail local part (`j.a.n.e@gmail.com`)    |     | +20              |
 * | no email at all (an OAuth account without one)      | +10 |                  |
 *
 * Scores are summed per column and capped at 100. Sign-ups here run no bot challenge yet, so their challenge
 * result is `not_run` and adds nothing; the admin tester can say what a challenge would have answered.
 */

export type TurnstileResult = "ok" | "invalid" | "error";
export type SignUpRiskScores = { bot: number; free_trial_abuse: number };

/** What a sign-up scores without the heuristic: nothing, as in the reference's open-source engine. */
export const NO_RISK: SignUpRiskScores = { bot: 0, free_trial_abuse: 0 };

/** The scores a sign-up gets in a project: 0, or the heuristic's when the project turned it on. */
export function signUpRiskScores(
  config: { gatehouse: { signUpRiskHeuristics: boolean } },
  input: Parameters<typeof computeSignUpRiskScores>[0],
): SignUpRiskScores {
  return config.gatehouse.signUpRiskHeuristics ? computeSignUpRiskScores(input) : { ...NO_RISK };
}

/** Well-known throwaway-mail domains; a starting list, not a service. */
const DISPOSABLE_DOMAINS = new Set([
  "10minutemail.com",
  "guerrillamail.com",
  "guerrillamail.net",
  "mailinator.com",
  "maildrop.cc",
  "sharklasers.com",
  "temp-mail.org",
  "tempmail.com",
  "throwawaymail.com",
  "trashmail.com",
  "yopmail.com",
  "dispostable.com",
  "getnada.com",
  "mailnesia.com",
  "mintemail.com",
]);

export function isDisposableDomain(domain: string): boolean {
  return DISPOSABLE_DOMAINS.has(domain.toLowerCase());
}

export function computeSignUpRiskScores(input: {
  /** Normalized (trimmed, lower-case) address, or "" for none. */
  email: string;
  turnstileResult: TurnstileResult | "not_run";
}): SignUpRiskScores {
  let bot = 0;
  let freeTrialAbuse = 0;
  if (input.turnstileResult === "invalid") bot += 40;
  if (input.turnstileResult === "error") bot += 10;

  const at = input.email.lastIndexOf("@");
  if (input.email === "" || at < 0) {
    bot += 10;
  } else {
    const local = input.email.slice(0, at);
    const domain = input.email.slice(at + 1);
    if (isDisposableDomain(domain)) {
      bot += 30;
      freeTrialAbuse += 50;
    }
    if ((local.match(/\d/g)?.length ?? 0) >= 5) bot += 20;
    if (local.includes("+")) freeTrialAbuse += 20;
    if ((domain === "gmail.com" || domain === "googlemail.com") && local.split("+")[0]!.includes(".")) {
      freeTrialAbuse += 20;
    }
  }
  return { bot: Math.min(100, bot), free_trial_abuse: Math.min(100, freeTrialAbuse) };
}
