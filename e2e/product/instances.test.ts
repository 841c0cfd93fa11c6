import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../packages/server/src/testing/ports.ts";
import { startTestSmtpServer, type TestSmtpServer } from "../../packages/server/src/testing/smtp-server.ts";
import { type Caller, callApi, expectOk, newSeedKeys, seedKeysEnv } from "./api.ts";
import { createOwnDatabase, type OwnDatabase } from "./postgres-database.ts";
import { DEPLOY_START, type ProductProcess, startProduct } from "./product-process.ts";

/**
 * Several instances of the built server (README, Deploy: "run as many as you need behind a load balancer").
 *
 * On the PostgreSQL pass two production processes start at the same moment on one fresh database, so their
 * migrations race, and every check goes in through one and out through the other: tokens, rate limits, the email
 * outbox. The embedded database serves one instance only (README), so on the PGlite pass the check is the other
 * side of that rule: a second process on the same data directory must refuse to start rather than open it too.
 */
const postgresUrl = process.env.DATABASE_URL;
const mode = postgresUrl ? "two production processes on one PostgreSQL database" : "the embedded database";
const PASSWORD = "two instances, one database";
const journal = JSON.parse(
  readFileSync(
    new URL("../../packages/server/src/db/migrations/meta/_journal.json", import.meta.url),
    "utf8",
  ),
) as { entries: { tag: string }[] };

// One branch per pass, as in walk.test.ts: each pass runs its own checks and neither reports skipped tests.
if (postgresUrl) {
  describe(`several instances (${mode})`, () => {
    let smtp: TestSmtpServer;
    let database: OwnDatabase;
    const instances: ProductProcess[] = [];
    let a: ProductProcess;
    let b: ProductProcess;
    let publicUrl: string;
    const keys = newSeedKeys();
    const client = (): Caller => ({
      projectId: "internal",
      accessType: "client",
      publishableClientKey: keys.publishableClientKey,
    });

    beforeAll(async () => {
      smtp = await startTestSmtpServer();
      database = await createOwnDatabase(postgresUrl, "gatehouse_instances");
      const ports = [await freePort(), await freePort()];
      // Behind a load balancer every instance has the one public URL; it names the token issuer, so it must match.
      publicUrl = `http://localhost:${ports[0]}`;
      const env = {
        NODE_ENV: "production",
        // Through the pooler (on the pooler pass) without a direct connection: the instances poll for change notices.
        ...database.serverEnv({ direct: false }),
        GATEHOUSE_SECRET: randomBytes(32).toString("base64url"),
        GATEHOUSE_BASE_URL: publicUrl,
        GATEHOUSE_SMTP_URL: smtp.url,
        GATEHOUSE_EMAIL_FROM: "auth@instances.test",
        ...seedKeysEnv(keys),
      };
      // Started together, not one after the other: both find the database empty and both try to migrate it.
      const started = await Promise.allSettled(
        ports.map((port) => startProduct({ command: DEPLOY_START, port, env: () => env })),
      );
      for (const result of started) if (result.status === "fulfilled") instances.push(result.value);
      const failure = started.find((result) => result.status === "rejected");
      if (failure) throw failure.reason;
      [a, b] = instances as [ProductProcess, ProductProcess];
    }, 180_000);

    afterAll(async () => {
      await Promise.all(instances.map((instance) => instance.stop()));
      await smtp?.close();
      await database?.drop();
    });

    async function signUp(via: ProductProcess, email: string, withVerificationEmail = false) {
      const body = await expectOk(
        callApi(via.baseUrl, client(), "/auth/password/sign-up", {
          body: {
            email,
            password: PASSWORD,
            ...(withVerificationEmail
              ? { verification_callback_url: `${publicUrl}/handler/email-verification` }
              : {}),
          },
        }),
        `sign-up of ${email}`,
      );
      return body as { access_token: string; refresh_token: string; user_id: string };
    }

    it("applied each migration once, though both processes started on the empty database at once", async () => {
      const rows = await database.query<{ hash: string }>("select hash from drizzle.__drizzle_migrations");
      expect(rows).toHaveLength(journal.entries.length);
      expect(new Set(rows.map((row) => row.hash)).size).toBe(journal.entries.length);
      for (const instance of [a, b]) {
        expect((await fetch(`${instance.baseUrl}/health`)).status).toBe(200);
        expect(instance.log()).toContain("Gatehouse is running at");
      }
    });

    it("accepts on one instance the tokens the other issued", async () => {
      const email = `token-${randomBytes(4).toString("hex")}@instances.test`;
      const tokens = await signUp(a, email);
      const me = await expectOk(
        callApi(b.baseUrl, { ...client(), accessToken: tokens.access_token }, "/users/me"),
        "GET /users/me on B with A's access token",
      );
      expect(me.id).toBe(tokens.user_id);
      expect(me.primary_email).toBe(email);

      // The session (refresh token) lives in the shared database: B refreshes it, and A accepts B's new token.
      const refreshed = await expectOk(
        callApi(
          b.baseUrl,
          { ...client(), refreshToken: tokens.refresh_token },
          "/auth/sessions/current/refresh",
          { body: {} },
        ),
        "refresh on B",
      );
      const again = await expectOk(
        callApi(a.baseUrl, { ...client(), accessToken: refreshed.access_token as string }, "/users/me"),
        "GET /users/me on A with B's access token",
      );
      expect(again.id).toBe(tokens.user_id);
    });

    it("shows on one instance a project change made through the other, well within its cache's lifetime", async () => {
      const admin: Caller = {
        projectId: "internal",
        accessType: "admin",
        superSecretAdminKey: keys.superSecretAdminKey,
      };
      const rename = (displayName: string) =>
        expectOk(
          callApi(a.baseUrl, admin, "/internal/projects/current", {
            method: "PATCH",
            body: { display_name: displayName },
          }),
          `rename to ${displayName} on A`,
        );
      const nameOnB = async () =>
        (await expectOk(callApi(b.baseUrl, client(), "/projects/current"), "GET /projects/current on B"))
          .display_name;
      // Once B shows the first name it has just read the project, so its cached copy is fresh (kept 30 s): the
      // second name can only reach it within the poll's 10 s through a change notice (LISTEN, or polling through a
      // transaction pooler).
      const first = `Renamed ${randomBytes(3).toString("hex")}`;
      await rename(first);
      await expect.poll(nameOnB, { timeout: 40_000 }).toBe(first);
      const second = `Renamed again ${randomBytes(3).toString("hex")}`;
      await rename(second);
      await expect.poll(nameOnB).toBe(second);
    });

    it("refuses on one instance the sign-ins whose limit was used up on the other", async () => {
      const email = `limit-${randomBytes(4).toString("hex")}@instances.test`;
      await signUp(a, email);
      const signIn = (via: ProductProcess, password: string) =>
        callApi(via.baseUrl, client(), "/auth/password/sign-in", { body: { email, password } });
      // B lets the right password in before the limit is used up, so its refusal below is the limit's doing.
      expect((await signIn(b, PASSWORD)).status).toBe(200);

      let wrongOnA = 0;
      let last = await signIn(a, "not the password");
      while (last.status !== 429) {
        expect(last.status, JSON.stringify(last.body)).toBe(400);
        wrongOnA += 1;
        // Bounded: the limits are tens per window, so a limit that never comes fails here rather than hanging.
        if (wrongOnA > 200) throw new Error("A never refused the sign-ins with 429");
        last = await signIn(a, "not the password");
      }
      const onB = await signIn(b, PASSWORD);
      expect(
        onB.status,
        `after ${wrongOnA} wrong passwords on A, B answered ${JSON.stringify(onB.body)}`,
      ).toBe(429);
      console.log(
        `several instances: rate limit used up on A after ${wrongOnA} wrong passwords, B refuses too`,
      );
    });

    it("delivers each email once, whichever instance queued it and whichever worker took it", async () => {
      const perInstance = 8;
      const recipients = [a, b].flatMap((via, index) =>
        Array.from({ length: perInstance }, (_, n) => ({
          via,
          email: `mail-${index}-${n}-${randomBytes(3).toString("hex")}@instances.test`,
        })),
      );
      // All at once: both workers wake up together and claim from the one outbox.
      await Promise.all(recipients.map(({ via, email }) => signUp(via, email, true)));
      const addresses = recipients.map((recipient) => recipient.email);

      const outbox = () =>
        database.query<{ to: string[]; status: string; attempts: number }>(
          'select "to", status, attempts from sent_emails where "to" ?| $1',
          [addresses],
        );
      await expect
        .poll(async () => (await outbox()).filter((row) => row.status === "sent").length, { timeout: 30_000 })
        .toBe(addresses.length);
      const rows = await outbox();
      // One claim each: a row claimed twice (by both workers) would show two attempts.
      expect(rows.map((row) => row.attempts)).toEqual(addresses.map(() => 1));
      // Every row is final, so no worker can send any of them again: what arrived now is all that will arrive.
      const received = addresses.map(
        (address) => smtp.messages.filter((message) => message.envelope.to.includes(address)).length,
      );
      expect(received).toEqual(addresses.map(() => 1));
      console.log(
        `several instances: ${addresses.length} emails queued through both instances, each delivered once`,
      );
    });

    it("answered no request with a 5xx on either instance", () => {
      const errors = [...a.serverErrors(), ...b.serverErrors()];
      // The logs hold each error's stack under its request id.
      expect(errors, errors.length ? `A:\n${a.log()}\nB:\n${b.log()}` : "").toEqual([]);
    });
  });
} else {
  describe(`several instances (${mode})`, () => {
    it("refuses to start a second process on a data directory that a running one has open", {
      timeout: 120_000,
    }, async () => {
      const dataDir = mkdtempSync(join(tmpdir(), "gatehouse-one-instance-"));
      const first = await startProduct({ command: DEPLOY_START, dataDir });
      try {
        // Two PostgreSQL engines writing one set of files would corrupt it; the second must stop at the door.
        const second = await startProduct({ command: DEPLOY_START, dataDir }).catch((error: Error) => error);
        if (!(second instanceof Error)) await second.stop();
        expect(second, "a second process started on the same embedded database").toBeInstanceOf(Error);
        expect((second as Error).message).toContain("before it was ready");
        expect((second as Error).message).toContain("another Gatehouse process");
        expect((await fetch(`${first.baseUrl}/health`)).status).toBe(200);
      } finally {
        await first.stop();
        rmSync(dataDir, { recursive: true, force: true });
      }
    });
  });
}
