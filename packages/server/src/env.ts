import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { type PoolingSetting, parsePoolingSetting } from "./db/pooling-setting.ts";
import {
  type AiSettings,
  readAiSettings,
  readDevOAuthIssuerUrl,
  readS3Settings,
  readSharedOAuthCredentials,
  readStripeSettings,
  type S3Settings,
  type StripeSettings,
} from "./env-services.ts";
import { type ProxyTrust, parseProxyTrust } from "./http/client-ip.ts";
import { type ObservabilitySettings, readObservabilitySettings } from "./observability/settings.ts";

/** Everything the server reads from its environment, parsed once at start-up. README.md lists each variable. */
export type ServerEnv = {
  port: number;
  /** Public URL; the issuer of access tokens is derived from it. */
  baseUrl: string;
  /** PostgreSQL connection string; undefined means embedded PGlite in `dataDir`. */
  databaseUrl: string | undefined;
  /**
   * PostgreSQL behind a pooler: how it pools (`GATEHOUSE_DATABASE_POOLING`, db/pooling.ts), a connection past it
   * for LISTEN and migrations (`GATEHOUSE_DATABASE_DIRECT_URL`), and whether instances migrate as they start
   * (`GATEHOUSE_MIGRATE_ON_START`, default true; false leaves it to `gatehouse-server migrate`).
   */
  database: {
    pooling: PoolingSetting;
    directUrl: string | undefined;
    migrateOnStart: boolean;
  };
  dataDir: string;
  /** Master secret for token signing keys and encryption of stored secrets. */
  secret: string;
  smtpUrl: string | undefined;
  emailFrom: string;
  accessTokenTtlSeconds: number;
  seed: {
    publishableClientKey: string | undefined;
    secretServerKey: string | undefined;
    superSecretAdminKey: string | undefined;
    adminEmail: string | undefined;
    adminPassword: string | undefined;
  };
  isDevelopment: boolean;
  /** The reverse proxies in front of the server, whose `x-forwarded-for` entries are believed (see client-ip.ts). */
  trustProxy: ProxyTrust | null;
  /**
   * Server-operator OAuth credentials for "shared" providers, by provider type, from
   * `GATEHOUSE_OAUTH_<PROVIDER>_CLIENT_ID` and `GATEHOUSE_OAUTH_<PROVIDER>_CLIENT_SECRET`.
   */
  sharedOAuthCredentials?: Readonly<Record<string, { clientId: string; clientSecret: string }>>;
  /**
   * In development, shared providers without credentials use a built-in OpenID provider; `GATEHOUSE_DEV_OAUTH=false`
   * turns that off. It is always off in production.
   */
  devOAuthProvider?: boolean;
  /**
   * `GATEHOUSE_DEV_OAUTH_ISSUER_URL` (or the reference's `STACK_OAUTH_MOCK_URL`): in development, shared providers
   * sign in at this OpenID issuer instead of the built-in stand-in, the way the reference talks to its mock server
   * (features/oauth/dev-issuer.ts), so a team can drive OAuth sign-in in its own CI. Refused in production.
   */
  devOAuthIssuerUrl?: string | undefined;
  /**
   * How many emails a project may send in an hour before its sending history raises it (PROTOCOL-EXTRA §1.10),
   * from `GATEHOUSE_EMAIL_CAPACITY_PER_HOUR`; `DEFAULT_EMAIL_CAPACITY_PER_HOUR` when unset.
   */
  emailCapacityPerHour?: number;
  /**
   * Past how many users `GET /users?include_total=true` estimates its total (users/list.ts, `EXACT_COUNT_LIMIT`
   * when unset); tests lower it.
   */
  usersExactCountLimit?: number;
  /**
   * Where uploaded images go (PROTOCOL-EXTRA §6.7): an S3-compatible store when `STACK_S3_ENDPOINT` and
   * `STACK_S3_BUCKET` are set, else files under `<dataDir>/files` served by this server (features/images).
   */
  s3?: S3Settings | undefined;
  /**
   * Stripe for payments (PROTOCOL-EXTRA §2): the platform's secret key (`STACK_STRIPE_SECRET_KEY`, connected
   * accounts are reached through it), the webhook signing secret (`STACK_STRIPE_WEBHOOK_SECRET`), and where the
   * API is (`GATEHOUSE_STRIPE_API_URL`: Stripe's own unless set, e.g. to a local stand-in or stripe-mock).
   */
  stripe?: StripeSettings | undefined;
  /**
   * The AI helper's model (features/ai): any OpenAI-compatible chat-completions endpoint, from `GATEHOUSE_AI_BASE_URL`,
   * `GATEHOUSE_AI_API_KEY` and `GATEHOUSE_AI_MODEL`. Unset: the AI routes answer how to turn it on.
   */
  ai?: AiSettings | undefined;
  /** Where the server listens and how it stops (`GATEHOUSE_HOST`, `GATEHOUSE_SHUTDOWN_*`); see readServingSettings. */
  serving?: ServingSettings;
  /**
   * Metrics, logs and traces (observability/settings.ts): GATEHOUSE_METRICS, GATEHOUSE_METRICS_TOKEN,
   * GATEHOUSE_LOG_FORMAT, GATEHOUSE_LOG_LEVEL, OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_SERVICE_NAME. Unset (hand-built test
   * environments): no metrics or traces, warnings and errors only.
   */
  observability?: ObservabilitySettings;
  /**
   * `GATEHOUSE_WEBHOOK_PRIVATE_ADDRESSES=allow`: production webhooks may reach loopback and private networks (an
   * operator's own receivers inside the network). Off by default: the SSRF guard (net/address-guard.ts).
   */
  webhooksToPrivateAddresses?: boolean;
  /**
   * Who receives what users send through `POST /internal/feedback` (PROTOCOL-EXTRA §6.6), from the reference's
   * `STACK_INTERNAL_FEEDBACK_RECIPIENTS` (comma-separated addresses). Unset: feedback is accepted and sent nowhere.
   */
  internalFeedbackRecipients?: string[];
  /**
   * The bearer token of the cron routes (`GET /internal/email-queue-step`, `POST /internal/failed-emails-digest`),
   * from the reference's `CRON_SECRET`. Unset: those routes refuse every caller.
   */
  cronSecret?: string | undefined;
};

export type ServingSettings = {
  /**
   * The addresses to listen on. Undefined: every interface (Node's default, IPv6 and IPv4 where the system has
   * both). Development defaults to loopback, so a server that lets anyone sign in through its OAuth stand-in and
   * shows stack traces is not reachable from the network unless asked.
   */
  hosts: string[] | undefined;
  /** The longest a shutdown may take, from the signal to the exit: in-flight work past it is cut short. */
  timeoutMs: number;
  /** How long a draining instance keeps accepting connections (answering 503 on /ready) before it closes them. */
  delayMs: number;
};

export const DEFAULT_EMAIL_CAPACITY_PER_HOUR = 200;

function parseEmailCapacity(value: string | undefined): number {
  if (value === undefined || value === "") return DEFAULT_EMAIL_CAPACITY_PER_HOUR;
  const capacity = Number(value);
  if (!Number.isInteger(capacity) || capacity < 1) {
    throw new Error(`Invalid GATEHOUSE_EMAIL_CAPACITY_PER_HOUR "${value}": use a whole number of 1 or more`);
  }
  return capacity;
}

/** Parses a duration like `10min`, `60s`, `1h` or a plain number of seconds. */
export function parseDurationSeconds(value: string): number {
  const match = /^(\d+)\s*(s|sec|m|min|h)?$/.exec(value.trim());
  if (!match) throw new Error(`Invalid duration "${value}": use e.g. 600, 60s, 10min or 1h`);
  const amount = Number(match[1]);
  const unit = match[2] ?? "s";
  const seconds = unit.startsWith("h") ? amount * 3600 : unit.startsWith("m") ? amount * 60 : amount;
  // The official SDK refuses tokens with under 20 s left, so anything shorter would never be usable.
  if (seconds < 60) throw new Error(`Access token lifetime must be at least 60 seconds, got "${value}"`);
  return seconds;
}

/**
 * Reads the master secret from the environment, or in development generates one into the data dir on first start.
 * Production requires it: instances generating their own would each sign tokens the others cannot verify.
 */
function loadOrCreateSecret(dataDir: string, fromEnv: string | undefined, isDevelopment: boolean): string {
  if (fromEnv) {
    if (fromEnv.length < 32) throw new Error("GATEHOUSE_SECRET must be at least 32 characters long");
    return fromEnv;
  }
  const file = path.join(dataDir, "secret");
  if (!isDevelopment) {
    throw new Error(
      [
        "GATEHOUSE_SECRET is required when NODE_ENV=production: set it to 32 or more random characters",
        "(e.g. `openssl rand -base64 32`), the same value on every instance.",
        ...(existsSync(file) ? [`This server generated one earlier in development: ${file}.`] : []),
      ].join(" "),
    );
  }
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(32).toString("base64url");
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}

/** localhost, *.localhost, 127.0.0.0/8 and [::1]: addresses that only this machine can reach. */
export function isLocalhostUrl(url: string): boolean {
  let hostname: string;
  try {
    hostname = new URL(url).hostname.toLowerCase();
  } catch {
    return false;
  }
  return (
    hostname === "localhost" ||
    hostname.endsWith(".localhost") ||
    hostname === "[::1]" ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname)
  );
}

export function readServerEnv(env: NodeJS.ProcessEnv = process.env): ServerEnv {
  const port = Number(env.PORT ?? 8102);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`Invalid PORT "${env.PORT}"`);
  const dataDir = path.resolve(env.GATEHOUSE_DATA_DIR ?? ".gatehouse");
  const baseUrl = (env.GATEHOUSE_BASE_URL || `http://localhost:${port}`).replace(/\/+$/, "");
  const isDevelopment = env.NODE_ENV !== "production";
  // Development mode signs anyone in through the stand-in OAuth provider and shows stack traces to local callers:
  // fine on a developer's machine, never for a server others can reach.
  if (isDevelopment && !isLocalhostUrl(baseUrl)) {
    throw new Error(
      `Refusing to start a development server at GATEHOUSE_BASE_URL=${baseUrl}: development mode is only for ` +
        "localhost. To serve others, set NODE_ENV=production (and GATEHOUSE_SECRET); to develop, use a localhost " +
        `GATEHOUSE_BASE_URL such as http://localhost:${port}.`,
    );
  }
  return {
    port,
    baseUrl,
    databaseUrl: env.DATABASE_URL || undefined,
    database: readDatabaseSettings(env),
    dataDir,
    secret: loadOrCreateSecret(dataDir, env.GATEHOUSE_SECRET, isDevelopment),
    smtpUrl: env.GATEHOUSE_SMTP_URL || undefined,
    emailFrom: env.GATEHOUSE_EMAIL_FROM ?? "noreply@localhost",
    accessTokenTtlSeconds: parseDurationSeconds(env.GATEHOUSE_ACCESS_TOKEN_TTL ?? "10min"),
    seed: {
      publishableClientKey: env.GATEHOUSE_SEED_INTERNAL_PUBLISHABLE_CLIENT_KEY || undefined,
      secretServerKey: env.GATEHOUSE_SEED_INTERNAL_SECRET_SERVER_KEY || undefined,
      superSecretAdminKey: env.GATEHOUSE_SEED_INTERNAL_SUPER_SECRET_ADMIN_KEY || undefined,
      adminEmail: env.GATEHOUSE_SEED_ADMIN_EMAIL || undefined,
      adminPassword: env.GATEHOUSE_SEED_ADMIN_PASSWORD || undefined,
    },
    isDevelopment,
    trustProxy: parseProxyTrust(env.GATEHOUSE_TRUST_PROXY),
    sharedOAuthCredentials: readSharedOAuthCredentials(env),
    devOAuthProvider: env.GATEHOUSE_DEV_OAUTH !== "false",
    devOAuthIssuerUrl: readDevOAuthIssuerUrl(env, isDevelopment),
    emailCapacityPerHour: parseEmailCapacity(env.GATEHOUSE_EMAIL_CAPACITY_PER_HOUR),
    s3: readS3Settings(env),
    stripe: readStripeSettings(env),
    ai: readAiSettings(env),
    serving: readServingSettings(env, isDevelopment),
    observability: readObservabilitySettings(env, isDevelopment),
    webhooksToPrivateAddresses: readPrivateWebhookSetting(env),
    internalFeedbackRecipients: readAddressList(env.STACK_INTERNAL_FEEDBACK_RECIPIENTS),
    cronSecret: env.CRON_SECRET || undefined,
  };
}

/** Below Kubernetes' default grace period of 30 s, so the process exits before it would be killed. */
export const DEFAULT_SHUTDOWN_TIMEOUT_MS = 25_000;
/**
 * In production a draining instance keeps listening this long, answering /ready with 503, so that a load balancer
 * probing it (or an endpoint list being updated) stops sending it traffic before connections are refused.
 */
export const DEFAULT_PRODUCTION_SHUTDOWN_DELAY_MS = 5_000;

/** `GATEHOUSE_HOST` (or `HOST`), `GATEHOUSE_SHUTDOWN_TIMEOUT`, `GATEHOUSE_SHUTDOWN_DELAY`. */
export function readServingSettings(env: NodeJS.ProcessEnv, isDevelopment: boolean): ServingSettings {
  const hostSetting = (env.GATEHOUSE_HOST || env.HOST || "").trim();
  const hosts = hostSetting
    ? hostSetting.split(",").map((host) => host.trim().replace(/^\[(.*)\]$/, "$1"))
    : isDevelopment
      ? ["127.0.0.1", "::1"]
      : undefined;
  const timeoutMs = shutdownDuration(env, "GATEHOUSE_SHUTDOWN_TIMEOUT", DEFAULT_SHUTDOWN_TIMEOUT_MS);
  const delayMs = shutdownDuration(
    env,
    "GATEHOUSE_SHUTDOWN_DELAY",
    isDevelopment ? 0 : DEFAULT_PRODUCTION_SHUTDOWN_DELAY_MS,
  );
  if (delayMs >= timeoutMs) {
    throw new Error(
      `GATEHOUSE_SHUTDOWN_DELAY (${delayMs / 1000} s) must be shorter than GATEHOUSE_SHUTDOWN_TIMEOUT ` +
        `(${timeoutMs / 1000} s): the delay is part of the shutdown, and requests need time to finish after it`,
    );
  }
  return { hosts, timeoutMs, delayMs };
}

/** A duration in seconds (`25`, `25s`, `2.5s`) or milliseconds (`500ms`). */
function shutdownDuration(env: NodeJS.ProcessEnv, name: string, fallbackMs: number): number {
  const value = env[name]?.trim();
  if (!value) return fallbackMs;
  const match = /^(\d+(?:\.\d+)?)\s*(ms|s)?$/.exec(value);
  if (!match)
    throw new Error(`Invalid ${name} "${value}": use seconds (e.g. 25 or 25s) or milliseconds (500ms)`);
  return Math.round(Number(match[1]) * (match[2] === "ms" ? 1 : 1000));
}

/** A comma-separated list of addresses (blanks dropped). */
function readAddressList(value: string | undefined): string[] {
  return (value ?? "")
    .split(",")
    .map((address) => address.trim())
    .filter((address) => address !== "");
}

function readPrivateWebhookSetting(env: NodeJS.ProcessEnv): boolean {
  const value = env.GATEHOUSE_WEBHOOK_PRIVATE_ADDRESSES || "deny";
  if (value !== "allow" && value !== "deny") {
    throw new Error(`Invalid GATEHOUSE_WEBHOOK_PRIVATE_ADDRESSES "${value}": use allow or deny`);
  }
  return value === "allow";
}

/** `GATEHOUSE_DATABASE_*` and `GATEHOUSE_MIGRATE_ON_START`: they only mean something with DATABASE_URL. */
export function readDatabaseSettings(env: NodeJS.ProcessEnv): ServerEnv["database"] {
  const directUrl = env.GATEHOUSE_DATABASE_DIRECT_URL || undefined;
  const migrateOnStart = env.GATEHOUSE_MIGRATE_ON_START;
  if (migrateOnStart !== undefined && migrateOnStart !== "" && !["true", "false"].includes(migrateOnStart)) {
    throw new Error(`Invalid GATEHOUSE_MIGRATE_ON_START "${migrateOnStart}": use true or false`);
  }
  if (directUrl && !/^postgres(ql)?:\/\//.test(directUrl)) {
    throw new Error("Invalid GATEHOUSE_DATABASE_DIRECT_URL: use a postgres:// connection string");
  }
  if ((directUrl || env.GATEHOUSE_DATABASE_POOLING) && !env.DATABASE_URL) {
    throw new Error("GATEHOUSE_DATABASE_POOLING and GATEHOUSE_DATABASE_DIRECT_URL need DATABASE_URL");
  }
  return {
    pooling: parsePoolingSetting(env.GATEHOUSE_DATABASE_POOLING),
    directUrl,
    migrateOnStart: migrateOnStart !== "false",
  };
}
