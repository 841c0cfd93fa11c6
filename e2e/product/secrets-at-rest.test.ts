import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ReceivedEmail,
  startTestSmtpServer,
  type TestSmtpServer,
} from "../../packages/server/src/testing/smtp-server.ts";
import { type Caller, callApi, codeInEmail, expectOk, newSeedKeys, seedKeysEnv } from "./api.ts";
import {
  type DumpedTable,
  dumpPglite,
  dumpPostgres,
  type Secret,
  scanDump,
  textSecret,
} from "./database-dump.ts";
import { createOwnDatabase, type OwnDatabase } from "./postgres-database.ts";
import { DEPLOY_START, type ProductProcess, startProduct } from "./product-process.ts";

/**
 * What a stolen database dump gives away. The built server in production takes real flows that create every kind
 * of secret: passwords, access and refresh tokens, project keys, user and team API keys, the project's SMTP
 * password and OAuth client secret, a TOTP secret, CLI codes and the one-time codes of verification, reset,
 * sign-in and invitation emails (read from a real SMTP server, as the user would). Then every row of every table
 * is dumped and searched for each of them, in the clear, as hex, base64 or URL-encoded. None may be there: what
 * the server must compare is hashed, what it must read back is encrypted.
 *
 * On the PGlite pass the dump is read from the data directory after the process stops; on the PostgreSQL pass
 * from the database of this file's own.
 */
const postgresUrl = process.env.DATABASE_URL;
const mode = postgresUrl ? "production on PostgreSQL" : "production on the embedded database";

const secrets: Secret[] = [];
/** Notes a secret for the scan and hands it back, so each is recorded where the test makes or receives it. */
function secret(name: string, value: string): string {
  if (value.length < 16) throw new Error(`${name} is too short to search for without false matches`);
  secrets.push(textSecret(name, value));
  return value;
}
/**
 * A one-time code from an email: the whole code (links carry it) and its first six characters, the part a person
 * types, which the sign-in email's subject shows in capitals. Six characters are short, but a random one of them
 * turning up by chance in a few dozen rows of hashes and ciphertext is about a one-in-ten-thousand event.
 */
function emailCode(name: string, code: string): string {
  secret(name, code);
  const typed = code.slice(0, 6);
  secrets.push({ name: `${name}, typed part`, forms: { lower: typed, upper: typed.toUpperCase() } });
  return code;
}
const newPassword = (name: string) => secret(name, `pw-${randomBytes(12).toString("hex")}`);

const keys = newSeedKeys();
const adminEmail = `admin-${randomBytes(4).toString("hex")}@secrets.test`;
const adminPassword = newPassword("seeded admin password");
let smtp: TestSmtpServer;
let product: ProductProcess;
let dataDir: string;
let database: OwnDatabase | null = null;

beforeAll(async () => {
  smtp = await startTestSmtpServer();
  dataDir = mkdtempSync(join(tmpdir(), "gatehouse-secrets-"));
  const operatorSmtpPassword = secret("operator SMTP password", randomBytes(12).toString("hex"));
  const env: Record<string, string> = {
    NODE_ENV: "production",
    GATEHOUSE_SECRET: secret("GATEHOUSE_SECRET", randomBytes(32).toString("base64url")),
    GATEHOUSE_SMTP_URL: `smtp://operator:${operatorSmtpPassword}@127.0.0.1:${smtp.port}`,
    GATEHOUSE_EMAIL_FROM: "auth@secrets.test",
    GATEHOUSE_SEED_ADMIN_EMAIL: adminEmail,
    GATEHOUSE_SEED_ADMIN_PASSWORD: adminPassword,
    ...seedKeysEnv(keys),
  };
  secret("internal publishable client key", keys.publishableClientKey);
  secret("internal secret server key", keys.secretServerKey);
  secret("internal super secret admin key", keys.superSecretAdminKey);
  if (postgresUrl) {
    database = await createOwnDatabase(postgresUrl, "gatehouse_secrets");
    Object.assign(env, database.serverEnv());
  }
  product = await startProduct({
    command: DEPLOY_START,
    dataDir,
    env: (baseUrl) => ({ ...env, GATEHOUSE_BASE_URL: baseUrl }),
  });
});

afterAll(async () => {
  await product?.stop();
  await smtp?.close();
  rmSync(dataDir, { recursive: true, force: true });
  await database?.drop();
});

/** The `count`-th email to `address` (1 for the first), once it has arrived. */
async function emailTo(address: string, count: number): Promise<ReceivedEmail> {
  const to = () => smtp.messages.filter((message) => message.envelope.to.includes(address));
  await expect.poll(() => to().length).toBeGreaterThanOrEqual(count);
  return to()[count - 1]!;
}

type Tokens = { access_token: string; refresh_token: string; user_id: string };
function tokens(body: Record<string, unknown>, whose: string): Tokens {
  secret(`${whose} access token`, body.access_token as string);
  secret(`${whose} refresh token`, body.refresh_token as string);
  return body as Tokens;
}

/** Standard base32 (RFC 4648), the form authenticator apps show a TOTP secret in. */
function base32(bytes: Buffer): string {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  let bits = "";
  for (const byte of bytes) bits += byte.toString(2).padStart(8, "0");
  let out = "";
  for (let i = 0; i < bits.length; i += 5)
    out += alphabet[Number.parseInt(bits.slice(i, i + 5).padEnd(5, "0"), 2)];
  return out;
}

describe(`secrets at rest (${mode})`, () => {
  const userEmail = `ada-${randomBytes(4).toString("hex")}@secrets.test`;

  it("runs the flows that create every kind of secret", async () => {
    const base = product.baseUrl;
    const internal: Caller = {
      projectId: "internal",
      accessType: "client",
      publishableClientKey: keys.publishableClientKey,
    };

    // The seeded administrator signs in to the dashboard's project and creates a project for a team of theirs.
    const owner = tokens(
      await expectOk(
        callApi(base, internal, "/auth/password/sign-in", {
          body: { email: adminEmail, password: adminPassword },
        }),
        "the seeded admin's sign-in",
      ),
      "owner",
    );
    const asOwner = { ...internal, accessToken: owner.access_token };
    const team = await expectOk(
      callApi(base, asOwner, "/teams", { body: { display_name: "Owners", creator_user_id: "me" } }),
      "the owner's team",
    );
    const project = await expectOk(
      callApi(base, asOwner, "/internal/projects", {
        body: { display_name: "Secrets app", owner_team_id: team.id },
      }),
      "project creation",
    );
    const admin: Caller = {
      projectId: project.id as string,
      accessType: "admin",
      adminAccessToken: owner.access_token,
    };
    const keySet = await expectOk(
      callApi(base, admin, "/internal/api-keys", {
        body: {
          description: "app keys",
          expires_at_millis: Date.now() + 86_400_000,
          has_publishable_client_key: true,
          has_secret_server_key: true,
          has_super_secret_admin_key: true,
        },
      }),
      "the project's keys",
    );
    secret("project publishable client key", keySet.publishable_client_key as string);
    secret("project secret server key", keySet.secret_server_key as string);
    secret("project super secret admin key", keySet.super_secret_admin_key as string);

    // The project's own mail server (this test's SMTP server, with a login) and an OAuth provider of its own.
    await expectOk(
      callApi(base, admin, "/internal/projects/current", {
        method: "PATCH",
        body: {
          config: {
            magic_link_enabled: true,
            allow_user_api_keys: true,
            allow_team_api_keys: true,
            client_team_creation_enabled: true,
            domains: [{ domain: base, handler_path: "/handler" }],
            email_config: {
              type: "standard",
              host: "127.0.0.1",
              port: smtp.port,
              username: "app-mailer",
              password: secret("project SMTP password", randomBytes(12).toString("hex")),
              sender_name: "Secrets app",
              sender_email: "app@secrets.test",
            },
            oauth_providers: [
              {
                id: "github",
                type: "standard",
                client_id: "secrets-app-client",
                client_secret: secret("OAuth client secret", randomBytes(20).toString("hex")),
              },
            ],
          },
        },
      }),
      "the project's email server and OAuth provider",
    );

    // A user of the app: sign-up with a verification email, sent through the project's server with its login.
    const app: Caller = {
      projectId: project.id as string,
      accessType: "client",
      publishableClientKey: keySet.publishable_client_key as string,
    };
    tokens(
      await expectOk(
        callApi(base, app, "/auth/password/sign-up", {
          body: {
            email: userEmail,
            password: newPassword("user's password"),
            verification_callback_url: `${base}/handler/email-verification`,
          },
        }),
        "sign-up",
      ),
      "sign-up",
    );
    const verification = await emailTo(userEmail, 1);
    expect(verification.authenticatedUser).toBe("app-mailer");
    const verificationCode = emailCode("email verification code", codeInEmail(verification.text));
    await expectOk(
      callApi(base, app, "/contact-channels/verify", { body: { code: verificationCode } }),
      "verify",
    );

    // Password reset by email, then a sign-in with the new password and one with an emailed sign-in code.
    await expectOk(
      callApi(base, app, "/auth/password/send-reset-code", {
        body: { email: userEmail, callback_url: `${base}/handler/password-reset` },
      }),
      "send reset code",
    );
    const resetCode = emailCode("password reset code", codeInEmail((await emailTo(userEmail, 2)).text));
    const password = newPassword("user's new password");
    await expectOk(
      callApi(base, app, "/auth/password/reset", { body: { code: resetCode, password } }),
      "reset",
    );
    const user = tokens(
      await expectOk(
        callApi(base, app, "/auth/password/sign-in", { body: { email: userEmail, password } }),
        "sign-in",
      ),
      "sign-in",
    );
    await expectOk(
      callApi(base, app, "/auth/otp/send-sign-in-code", {
        body: { email: userEmail, callback_url: `${base}/handler/magic-link-callback` },
      }),
      "send sign-in code",
    );
    const signInCode = emailCode("email sign-in code", codeInEmail((await emailTo(userEmail, 3)).text));
    tokens(
      await expectOk(callApi(base, app, "/auth/otp/sign-in", { body: { code: signInCode } }), "OTP"),
      "OTP",
    );

    // API keys of the user and of a team, an invitation to that team, a TOTP secret, a CLI login.
    const asUser = { ...app, accessToken: user.access_token };
    const userKey = await expectOk(
      callApi(base, asUser, "/user-api-keys", { body: { description: "laptop", user_id: "me" } }),
      "user API key",
    );
    secret("user API key", userKey.value as string);
    const appTeam = await expectOk(
      callApi(base, asUser, "/teams", { body: { display_name: "Ada's team", creator_user_id: "me" } }),
      "the user's team",
    );
    const teamKey = await expectOk(
      callApi(base, asUser, "/team-api-keys", { body: { description: "ci", team_id: appTeam.id } }),
      "team API key",
    );
    secret("team API key", teamKey.value as string);
    const invitee = `ivan-${randomBytes(4).toString("hex")}@secrets.test`;
    await expectOk(
      callApi(base, asUser, "/team-invitations/send-code", {
        body: { team_id: appTeam.id, email: invitee, callback_url: `${base}/handler/team-invitation` },
      }),
      "team invitation",
    );
    emailCode("team invitation code", codeInEmail((await emailTo(invitee, 1)).text));

    const totp = randomBytes(20);
    secrets.push({
      name: "TOTP secret",
      forms: { base64: totp.toString("base64"), hex: totp.toString("hex"), base32: base32(totp) },
    });
    await expectOk(
      callApi(base, asUser, "/users/me", {
        method: "PATCH",
        body: { totp_secret_base64: totp.toString("base64") },
      }),
      "TOTP enrolment",
    );

    const cli = await expectOk(callApi(base, app, "/auth/cli", { body: {} }), "CLI login start");
    secret("CLI polling code", cli.polling_code as string);
    const loginCode = secret("CLI login code", cli.login_code as string);
    await expectOk(
      callApi(base, asUser, "/auth/cli/complete", {
        body: { login_code: loginCode, refresh_token: user.refresh_token },
      }),
      "CLI login completion",
    );
    const polled = await expectOk(
      callApi(base, app, "/auth/cli/poll", { body: { polling_code: cli.polling_code } }),
      "CLI poll",
    );
    secret("CLI refresh token", polled.refresh_token as string);
    expect(product.serverErrors()).toEqual([]);
  });

  it("writes none of them to its log, whose every line is JSON (production's format)", async () => {
    // A refresh too, so the log has seen every kind of credential in a request header.
    const signIn = tokens(
      await expectOk(
        callApi(
          product.baseUrl,
          { projectId: "internal", accessType: "client", publishableClientKey: keys.publishableClientKey },
          "/auth/password/sign-in",
          {
            body: { email: adminEmail, password: adminPassword },
          },
        ),
        "the admin's second sign-in",
      ),
      "second sign-in",
    );
    const refreshed = await expectOk(
      callApi(
        product.baseUrl,
        {
          projectId: "internal",
          accessType: "client",
          publishableClientKey: keys.publishableClientKey,
          refreshToken: signIn.refresh_token,
        },
        "/auth/sessions/current/refresh",
        { body: {} },
      ),
      "refresh",
    );
    secret("refreshed access token", refreshed.access_token as string);

    const lines = product
      .log()
      .split("\n")
      .filter((line) => line.trim() !== "");
    const notJson = lines.filter((line) => {
      try {
        return typeof JSON.parse(line) !== "object";
      } catch {
        return true;
      }
    });
    expect(notJson).toEqual([]);
    // One access line per request, with the route template and no query or body.
    const access = lines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((e) => e.msg === "request");
    expect(access.some((e) => e.route === "/api/v1/auth/sessions/current/refresh" && e.status === 200)).toBe(
      true,
    );
    expect(access.every((e) => typeof e.request_id === "string" && typeof e.duration_ms === "number")).toBe(
      true,
    );

    const log = product.log();
    // The typed part of an emailed code is six characters, short enough to occur by chance in ids; its full form
    // is searched.
    const found = secrets.flatMap((s) =>
      Object.entries(s.forms)
        .filter(([, form]) => form.length >= 16 && log.includes(form))
        .map(([name]) => `${s.name} (${name})`),
    );
    expect(found).toEqual([]);
  });

  it("keeps none of them in the clear, in any column of any table", async () => {
    let tables: DumpedTable[];
    if (database) {
      tables = await dumpPostgres(database.url);
    } else {
      // The embedded database is one process's: it is read once the server has let go of it.
      await product.stop();
      tables = await dumpPglite(join(dataDir, "pglite"));
    }
    const rows = tables.reduce((sum, table) => sum + table.rows.length, 0);
    // The dump holds the data: the user's address, which is no secret, is found by the same scan.
    expect(scanDump(tables, [textSecret("an email address", userEmail)])).not.toEqual([]);

    const findings = scanDump(tables, secrets);
    const found = findings.map((f) => `${f.secret} (${f.form}) in ${f.table}.${f.column}`);
    console.log(
      `dump scan (${mode}): ${secrets.length} secrets searched in ${tables.length} tables, ${rows} rows: ` +
        (found.length ? `${found.length} found:\n  ${found.join("\n  ")}` : "none found"),
    );
    expect(found).toEqual([]);
  });
});
