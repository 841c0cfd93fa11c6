import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Caller, callApi, expectOk, newSeedKeys, seedKeysEnv } from "./api.ts";
import { createOwnDatabase, type OwnDatabase } from "./postgres-database.ts";
import { DEPLOY_START, type ProductProcess, startProduct } from "./product-process.ts";

/**
 * kill -9 in the middle of a stream of writes: the built server (the Deploy command, so the killed pid is the server
 * itself, not npm) takes sign-ups, user creations and updates from a few clients at once, is killed with SIGKILL
 * while some requests are in flight, and starts again on the same data. Every write that was answered with a 2xx
 * must be there, and the restarted server must start cleanly and take writes again.
 *
 * On the PGlite pass the data is the embedded database in GATEHOUSE_DATA_DIR, which the crash can tear mid-write;
 * on the PostgreSQL pass it is a database of this file's own on the pass's server.
 */
const postgresUrl = process.env.DATABASE_URL;
const mode = postgresUrl ? "production on PostgreSQL" : "production on the embedded database";
/** Writes answered before the kill; a few dozen keep the file well under a minute. */
const ACKNOWLEDGED_BEFORE_KILL = 36;
const LANES = 4;
const PASSWORD = "written before the crash";

const keys = newSeedKeys();
let dataDir: string;
let database: OwnDatabase | null = null;
let env: Record<string, string>;
const processes: ProductProcess[] = [];

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "gatehouse-crash-"));
  env = {
    NODE_ENV: "production",
    GATEHOUSE_SECRET: randomBytes(32).toString("base64url"),
    ...seedKeysEnv(keys),
  };
  if (postgresUrl) {
    database = await createOwnDatabase(postgresUrl, "gatehouse_crash");
    Object.assign(env, database.serverEnv());
  }
});

afterAll(async () => {
  await Promise.all(processes.map((product) => product.stop()));
  rmSync(dataDir, { recursive: true, force: true });
  await database?.drop();
});

const start = async () => {
  const product = await startProduct({
    command: DEPLOY_START,
    dataDir,
    env: (baseUrl) => ({ ...env, GATEHOUSE_BASE_URL: baseUrl }),
  });
  processes.push(product);
  return product;
};

/** A user the stream wrote, with the display-name versions it sent and the last one answered with a 2xx. */
type Written = { id: string; email: string; password: string | null; sent: number; acknowledged: number };

describe(`kill -9 during writes (${mode})`, () => {
  it("keeps every acknowledged write and starts cleanly on the same data", { timeout: 120_000 }, async () => {
    const first = await start();
    const server: Caller = {
      projectId: "internal",
      accessType: "server",
      secretServerKey: keys.secretServerKey,
    };
    const client: Caller = {
      projectId: "internal",
      accessType: "client",
      publishableClientKey: keys.publishableClientKey,
    };
    const written: Written[] = [];
    const counts = { signUps: 0, creations: 0, updates: 0, unanswered: 0 };
    const acknowledged = () => counts.signUps + counts.creations + counts.updates;
    let killing: Promise<void> | null = null;

    // One write of a lane: a sign-up (password hashed and stored), a server-side creation, or an update of one of
    // the lane's own users (never shared, so each user's versions arrive in order).
    const write = async (lane: number, step: number, own: Written[]) => {
      const kind = step % 3;
      if (kind === 2 && own.length > 0) {
        const user = own[step % own.length]!;
        const version = ++user.sent;
        await expectOk(
          callApi(first.baseUrl, server, `/users/${user.id}`, {
            method: "PATCH",
            body: { display_name: `v${version}` },
          }),
          "update",
        );
        user.acknowledged = version;
        counts.updates += 1;
        return;
      }
      const email = `crash-${lane}-${step}-${randomBytes(3).toString("hex")}@crash.test`;
      if (kind === 0) {
        const body = await expectOk(
          callApi(first.baseUrl, client, "/auth/password/sign-up", { body: { email, password: PASSWORD } }),
          "sign-up",
        );
        own.push({ id: body.user_id as string, email, password: PASSWORD, sent: 0, acknowledged: 0 });
        counts.signUps += 1;
      } else {
        const body = await expectOk(
          callApi(first.baseUrl, server, "/users", {
            body: { primary_email: email, primary_email_auth_enabled: true, display_name: "v0" },
          }),
          "creation",
        );
        own.push({ id: body.id as string, email, password: null, sent: 0, acknowledged: 0 });
        counts.creations += 1;
      }
    };

    const lane = async (index: number) => {
      const own: Written[] = [];
      for (let step = 0; ; step++) {
        try {
          await write(index, step, own);
        } catch (error) {
          // A refused write (4xx/5xx) before the kill is a bug; after it, no answer is what a crash looks like.
          if (!killing) throw error;
          counts.unanswered += 1;
          break;
        }
        if (killing) break;
        // The kill comes right after an answer, while the other lanes still wait for theirs.
        if (acknowledged() >= ACKNOWLEDGED_BEFORE_KILL) killing = first.kill();
      }
      written.push(...own);
    };
    await Promise.all(Array.from({ length: LANES }, (_, index) => lane(index)));
    await killing;
    expect(acknowledged()).toBeGreaterThanOrEqual(ACKNOWLEDGED_BEFORE_KILL);

    const second = await start();
    let present = 0;
    const missing: string[] = [];
    for (const user of written) {
      const answer = await callApi(second.baseUrl, server, `/users/${user.id}`);
      if (answer.status !== 200 || answer.body.primary_email !== user.email) {
        missing.push(`${user.email}: ${answer.status} ${JSON.stringify(answer.body)}`);
        continue;
      }
      present += 1;
      // An update in flight at the kill may or may not have committed; an acknowledged one must have.
      const version = Number(String(answer.body.display_name ?? "v0").slice(1));
      if (version < user.acknowledged || version > user.sent) {
        missing.push(`${user.email}: display name v${version}, acknowledged v${user.acknowledged}`);
      } else present += user.acknowledged;
      if (user.password && answer.body.has_password !== true) missing.push(`${user.email}: no password hash`);
    }
    // The hash itself survived too: one signed-up user signs in with the password (one is enough, each costs ~0.1 s).
    const signedUp = written.find((user) => user.password);
    if (signedUp) {
      const signIn = await callApi(second.baseUrl, client, "/auth/password/sign-in", {
        body: { email: signedUp.email, password: signedUp.password },
      });
      if (signIn.status !== 200) missing.push(`${signedUp.email}: sign-in ${signIn.status}`);
    }
    console.log(
      `crash test (${mode}): ${acknowledged()} acknowledged writes (${counts.signUps} sign-ups, ` +
        `${counts.creations} creations, ${counts.updates} updates), ${present} present after kill -9, ` +
        `${counts.unanswered} unanswered at the kill`,
    );
    expect(missing).toEqual([]);
    expect(present).toBe(acknowledged());

    // Started cleanly: it takes a new write, and neither process answered anything with a 5xx.
    const after = await expectOk(
      callApi(second.baseUrl, server, "/users", { body: { primary_email: "after@crash.test" } }),
      "a write after the restart",
    );
    expect((await callApi(second.baseUrl, server, `/users/${after.id}`)).status).toBe(200);
    expect([...first.serverErrors(), ...second.serverErrors()]).toEqual([]);
  });
});
