import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

/** Everything the server reads from its environment, parsed once at start-up. DESIGN.md lists each variable. */
export type ServerEnv = {
  port: number;
  /** Public URL; the issuer of access tokens is derived from it. */
  baseUrl: string;
  /** PostgreSQL connection string; undefined means embedded PGlite in `dataDir`. */
  databaseUrl: string | undefined;
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
  /** Read the client IP from `x-forwarded-for` (only behind a proxy that sets it). */
  trustProxy: boolean;
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
};

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

/** Reads the master secret from the environment, or generates one into the data dir on first start. */
function loadOrCreateSecret(dataDir: string, fromEnv: string | undefined): string {
  if (fromEnv) {
    if (fromEnv.length < 32) throw new Error("GATEHOUSE_SECRET must be at least 32 characters long");
    return fromEnv;
  }
  const file = path.join(dataDir, "secret");
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(32).toString("base64url");
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}

export function readServerEnv(env: NodeJS.ProcessEnv = process.env): ServerEnv {
  const port = Number(env.PORT ?? 8102);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`Invalid PORT "${env.PORT}"`);
  const dataDir = path.resolve(env.GATEHOUSE_DATA_DIR ?? ".gatehouse");
  return {
    port,
    baseUrl: (env.GATEHOUSE_BASE_URL ?? `http://localhost:${port}`).replace(/\/+$/, ""),
    databaseUrl: env.DATABASE_URL || undefined,
    dataDir,
    secret: loadOrCreateSecret(dataDir, env.GATEHOUSE_SECRET),
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
    isDevelopment: env.NODE_ENV !== "production",
    trustProxy: env.GATEHOUSE_TRUST_PROXY === "true",
    sharedOAuthCredentials: readSharedOAuthCredentials(env),
    devOAuthProvider: env.GATEHOUSE_DEV_OAUTH !== "false",
  };
}

/** `GATEHOUSE_OAUTH_<PROVIDER>_CLIENT_ID` / `_CLIENT_SECRET` pairs; a provider needs both. */
function readSharedOAuthCredentials(
  env: NodeJS.ProcessEnv,
): Record<string, { clientId: string; clientSecret: string }> {
  const credentials: Record<string, { clientId: string; clientSecret: string }> = {};
  for (const [name, clientId] of Object.entries(env)) {
    const match = /^GATEHOUSE_OAUTH_([A-Z0-9]+)_CLIENT_ID$/.exec(name);
    const clientSecret = match ? env[`GATEHOUSE_OAUTH_${match[1]}_CLIENT_SECRET`] : undefined;
    if (match && clientId && clientSecret) credentials[match[1]!.toLowerCase()] = { clientId, clientSecret };
  }
  return credentials;
}
