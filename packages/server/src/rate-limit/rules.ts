/**
 * Every rate limit the server applies, with its default numbers. Pure data: the project config schema reads the
 * ids from here (`gatehouse.rateLimits.<id>`), and the limiter reads the numbers.
 */

export type RateLimitRule = {
  /** The rule's id in the project config, e.g. `signInPerIp` in `gatehouse.rateLimits.signInPerIp`. */
  id: RateLimitRuleId;
  /** What is counted; part of the counter's key, e.g. `sign-in:account`. */
  name: string;
  /** Attempts allowed per window. */
  limit: number;
  /** A window starts at the first attempt of a counter (not at a clock edge) and lasts this long. */
  windowSeconds: number;
};

/**
 * Limits for anything that sends email or checks a secret (OWASP ASVS 2.2.1). Per account they stop guessing one
 * victim's secret; per IP they stop spraying many accounts from one machine. Numbers are generous for humans.
 *
 * Password checks are limited per account AND source IP (10 per 5 minutes), with a much higher ceiling per account
 * alone (100 per hour). Why both: with only a tight per-account limit, anyone could lock a victim out by failing on
 * purpose; keyed by IP too, such an attacker only locks themselves out, while guessing from many machines still
 * hits the ceiling after 100 tries an hour. Addresses that signed in to the account before never count towards the
 * ceiling nor wait for it, and past it everyone else is slowed down rather than walled off (see password-checks.ts).
 */
export const RATE_LIMITS = {
  signInPerAccountFromIp: {
    id: "signInPerAccountFromIp",
    name: "sign-in:account-ip",
    limit: 10,
    windowSeconds: 300,
  },
  signInPerAccount: { id: "signInPerAccount", name: "sign-in:account", limit: 100, windowSeconds: 3600 },
  signInPerIp: { id: "signInPerIp", name: "sign-in:ip", limit: 60, windowSeconds: 300 },
  signUpPerIp: { id: "signUpPerIp", name: "sign-up:ip", limit: 30, windowSeconds: 3600 },
  emailPerRecipient: { id: "emailPerRecipient", name: "email:recipient", limit: 5, windowSeconds: 600 },
  emailPerIp: { id: "emailPerIp", name: "email:ip", limit: 30, windowSeconds: 600 },
  codeCheckPerIp: { id: "codeCheckPerIp", name: "code-check:ip", limit: 60, windowSeconds: 300 },
  /**
   * Six TOTP digits are 1 in a million, and each MFA attempt code already allows only 20 tries; this stops someone
   * who knows the password from asking for fresh attempt codes to keep guessing.
   */
  mfaPerUser: { id: "mfaPerUser", name: "mfa:user", limit: 10, windowSeconds: 300 },
  /** Every passkey challenge is a database row; this keeps one machine from filling the table. */
  passkeyChallengesPerIp: {
    id: "passkeyChallengesPerIp",
    name: "passkey-challenge:ip",
    limit: 60,
    windowSeconds: 300,
  },
  /**
   * The SDK polls every 2 s, so one CLI makes 30 polls a minute; this lets a few hundred pass per IP and minute,
   * enough for a whole office behind one NAT, while stopping a runaway loop from hammering the database.
   */
  cliPollPerIp: { id: "cliPollPerIp", name: "cli-poll:ip", limit: 300, windowSeconds: 60 },
  /**
   * Each AI helper question is one or more paid model calls (features/ai): 60 an hour per owner of a project is
   * plenty for a person at the dashboard and caps what a leaked admin credential or a runaway script can spend.
   */
  aiQueryPerOwner: { id: "aiQueryPerOwner", name: "ai-query:owner", limit: 60, windowSeconds: 3600 },
  /**
   * Each tool the model runs for an owner reads the project's users, teams, events or config, and a question may
   * call several (up to the step limit): this caps the reads one owner's questions make, whatever the model asks.
   */
  aiToolCallsPerOwner: {
    id: "aiToolCallsPerOwner",
    name: "ai-tool-call:owner",
    limit: 120,
    windowSeconds: 3600,
  },
  /**
   * Previews run owner-written TSX in the shared sandbox for up to 15 s each (render-email, and the test render of
   * every theme and template save). The dashboard's editor renders as you type (at most one request per pause), so
   * 300 in 10 minutes is a busy hour of editing; a script queueing renders meets it long before it costs other
   * projects anything (they are served fairly in any case, sandbox-queue.ts).
   */
  emailPreviewPerOwner: {
    id: "emailPreviewPerOwner",
    name: "email-preview:owner",
    limit: 300,
    windowSeconds: 600,
  },
  /**
   * A test webhook is one outgoing request to an address the project chose, sent while the caller waits: this
   * keeps the server from being a project's tool for hammering some host.
   */
  testWebhookPerProject: {
    id: "testWebhookPerProject",
    name: "test-webhook:project",
    limit: 20,
    windowSeconds: 600,
  },
  /**
   * Purchase codes are 45 random characters, so guessing is hopeless; this still answers a guesser (and a page
   * reloaded in a loop) with 429 rather than a database read per try. A purchase page reads its code a few times.
   */
  purchaseCodePerIp: { id: "purchaseCodePerIp", name: "purchase-code:ip", limit: 60, windowSeconds: 300 },
} as const satisfies Record<string, { id: string; name: string; limit: number; windowSeconds: number }>;

export type RateLimitRuleId = keyof typeof RATE_LIMITS;

export const RATE_LIMIT_RULE_IDS = Object.keys(RATE_LIMITS) as RateLimitRuleId[];

/**
 * Callers on this machine (127.0.0.0/8, ::1) of a development server get every limit multiplied by this: an app's
 * own test suite against `npm start` signs in and sends codes far faster than any person. 100 turns "60 sign-ins
 * per 5 minutes" into 6,000 (20 a second), still a stop for a runaway loop. Production servers never apply it.
 * A project sets `gatehouse.developmentLoopbackRateLimitFactor` to 1 to try its real limits locally.
 */
export const DEVELOPMENT_LOOPBACK_FACTOR = 100;

/**
 * Windows may last at most a day: counters older than that are swept, which must never cut a live window short.
 */
export const MAX_WINDOW_SECONDS = 86_400;

/** Sane bounds for a configured limit; above a million per window a limit means nothing. */
export const MAX_LIMIT = 1_000_000;
