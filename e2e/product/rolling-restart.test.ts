import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "../../packages/server/src/testing/ports.ts";
import { startTestSmtpServer, type TestSmtpServer } from "../../packages/server/src/testing/smtp-server.ts";
import { newSeedKeys, seedKeysEnv } from "./api.ts";
import { type Balancer, startBalancer } from "./balancer.ts";
import { createOwnDatabase, type OwnDatabase } from "./postgres-database.ts";
import { DEPLOY_START, type ProductProcess, startProduct } from "./product-process.ts";

/**
 * Upgrades without downtime (README, Deploy: SIGTERM drains). On the PostgreSQL pass two production instances run
 * behind a load balancer with health checks (balancer.ts) while simulated users sign up, sign in, refresh and read
 * themselves through it; each instance in turn gets SIGTERM, exits, and a new process takes its port. No request may
 * fail, and every sign-up's verification email and `user.created` webhook must arrive once the queues drain. On the
 * PGlite pass (one instance per data directory) the single-instance counterpart: requests in flight when SIGTERM
 * arrives are answered, and the emails they queued are delivered after the restart.
 */
const postgresUrl = process.env.DATABASE_URL;
const PASSWORD = "rolling restart password";
const keys = newSeedKeys();
const secret = randomBytes(32).toString("base64url");

let smtp: TestSmtpServer | undefined;
afterAll(async () => {
  await smtp?.close();
});

/** Answers of the API through `baseUrl`, as an app's client sends them, from a simulated client address. */
async function api(
  baseUrl: string,
  path: string,
  options: { clientIp: string; body?: unknown; headers?: Record<string, string> },
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${baseUrl}/api/v1${path}`, {
    method: options.body === undefined ? "GET" : "POST",
    headers: {
      "x-stack-project-id": "internal",
      "x-stack-access-type": "client",
      "x-stack-publishable-client-key": keys.publishableClientKey,
      "x-test-client-ip": options.clientIp,
      ...(options.body === undefined ? {} : { "content-type": "application/json" }),
      ...options.headers,
    },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  const text = await response.text();
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    body = { text };
  }
  return { status: response.status, body };
}

/** A webhook receiver on 127.0.0.1 keeping the `user.created` events it got. */
async function startWebhookReceiver() {
  const created: string[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const event = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
        type: string;
        data: { id?: string };
      };
      if (event.type === "user.created" && event.data.id) created.push(event.data.id);
      response.writeHead(200).end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    created,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/**
 * A POST whose headers go out at once with `expect: 100-continue` and whose body waits for `send()`: `continued`
 * resolves when the server answered `100 Continue`, that is, when it has begun handling the request.
 */
function heldRequest(port: number, path: string, json: unknown) {
  const body = JSON.stringify(json);
  let send = () => {};
  let continued!: Promise<void>;
  const answered = new Promise<{ status: number; text: string }>((resolve, reject) => {
    const request = http.request(
      {
        host: "127.0.0.1",
        port,
        method: "POST",
        path,
        agent: false,
        headers: {
          "x-stack-project-id": "internal",
          "x-stack-access-type": "client",
          "x-stack-publishable-client-key": keys.publishableClientKey,
          "content-type": "application/json",
          "content-length": Buffer.byteLength(body),
          expect: "100-continue",
        },
      },
      (response) => {
        let text = "";
        response.on("data", (chunk: Buffer) => {
          text += chunk.toString();
        });
        response.on("end", () => resolve({ status: response.statusCode ?? 0, text }));
      },
    );
    request.on("error", reject);
    continued = new Promise<void>((resolve) => request.once("continue", () => resolve()));
    send = () => request.end(body);
    request.flushHeaders();
  });
  return { continued, answered, send: () => send() };
}

const occurrences = (values: string[]) => {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return counts;
};

if (postgresUrl) {
  describe("a rolling restart of two instances behind a load balancer (PostgreSQL)", () => {
    let database: OwnDatabase | undefined;
    let balancer: Balancer | undefined;
    let receiver: Awaited<ReturnType<typeof startWebhookReceiver>> | undefined;
    const processes: ProductProcess[] = [];

    afterAll(async () => {
      await Promise.all(processes.map((product) => product.stop()));
      await balancer?.close();
      await receiver?.close();
      await database?.drop();
    });

    it("answers every request and loses no email or webhook while each instance is restarted", {
      timeout: 600_000,
    }, async () => {
      smtp = await startTestSmtpServer();
      receiver = await startWebhookReceiver();
      database = await createOwnDatabase(postgresUrl, "gatehouse_rolling");
      balancer = await startBalancer();
      const publicUrl = balancer.url;
      const env = {
        NODE_ENV: "production",
        ...database.serverEnv(),
        GATEHOUSE_SECRET: secret,
        GATEHOUSE_BASE_URL: publicUrl,
        GATEHOUSE_SMTP_URL: smtp.url,
        GATEHOUSE_EMAIL_FROM: "auth@rolling.test",
        // Every sign-up sends one: the hourly capacity must not hold any back past the test's wait.
        GATEHOUSE_EMAIL_CAPACITY_PER_HOUR: "100000",
        GATEHOUSE_TRUST_PROXY: "1",
        // The receiver is on loopback, which production's SSRF guard refuses unless the operator allows it.
        GATEHOUSE_WEBHOOK_PRIVATE_ADDRESSES: "allow",
        // Long enough for the balancer, checking every 50 ms, to see the 503 before connections are refused.
        GATEHOUSE_SHUTDOWN_DELAY: "2s",
        ...seedKeysEnv(keys),
      };
      const ports = [await freePort(), await freePort()];
      const start = (port: number) => startProduct({ command: DEPLOY_START, port, env: () => env });
      const started = await Promise.allSettled(ports.map(start));
      for (const result of started) if (result.status === "fulfilled") processes.push(result.value);
      const failedStart = started.find((result) => result.status === "rejected");
      if (failedStart) throw failedStart.reason;
      const current = new Map(ports.map((port, index) => [port, processes[index]!]));
      balancer.setBackends(ports);
      const allReady = () => ports.every((port) => balancer!.isReady(port));
      await expect.poll(allReady, { timeout: 60_000 }).toBe(true);

      const admin = await fetch(`${publicUrl}/api/v1/webhooks-portal/endpoints`, {
        method: "POST",
        headers: {
          "x-stack-project-id": "internal",
          "x-stack-access-type": "admin",
          "x-stack-super-secret-admin-key": keys.superSecretAdminKey,
          "content-type": "application/json",
        },
        body: JSON.stringify({ url: receiver.url }),
      });
      expect(admin.status, await admin.clone().text()).toBe(201);

      // The load: simulated users, each signing up (an email and a webhook), then signing in, refreshing and
      // reading itself, over and over until the restarts are done.
      const failures: string[] = [];
      const signedUp: { email: string; userId: string }[] = [];
      let iterations = 0;
      let running = true;
      let clients = 0;
      const user = async (n: number) => {
        for (let round = 0; running && round < 2_000; round++) {
          const clientIp = `198.18.${n}.${round % 250}`;
          const email = `user-${n}-${round}-${randomBytes(3).toString("hex")}@rolling.test`;
          const step = async (what: string, path: string, options: Parameters<typeof api>[2]) => {
            const answer = await api(publicUrl, path, options).catch(
              (error: Error): Awaited<ReturnType<typeof api>> => ({
                status: 0,
                body: { error: `${error.message} ${String((error as { cause?: unknown }).cause ?? "")}` },
              }),
            );
            if (answer.status < 200 || answer.status >= 300) {
              failures.push(`${what} for ${email}: ${answer.status} ${JSON.stringify(answer.body)}`);
              return null;
            }
            return answer.body;
          };
          clients += 1;
          const created = await step("sign-up", "/auth/password/sign-up", {
            clientIp,
            body: {
              email,
              password: PASSWORD,
              verification_callback_url: `${publicUrl}/handler/email-verification`,
            },
          });
          if (!created) continue;
          signedUp.push({ email, userId: created.user_id as string });
          const signedIn = await step("sign-in", "/auth/password/sign-in", {
            clientIp,
            body: { email, password: PASSWORD },
          });
          if (!signedIn) continue;
          const refreshed = await step("refresh", "/auth/sessions/current/refresh", {
            clientIp,
            body: {},
            headers: { "x-stack-refresh-token": signedIn.refresh_token as string },
          });
          if (!refreshed) continue;
          await step("GET /users/me", "/users/me", {
            clientIp,
            headers: { "x-stack-access-token": refreshed.access_token as string },
          });
          iterations += 1;
        }
      };
      const load = Promise.all([1, 2, 3, 4].map(user));
      const progressed = async (beyond: number) =>
        expect.poll(() => iterations, { timeout: 120_000 }).toBeGreaterThanOrEqual(beyond + 4);

      try {
        await progressed(0);
        const exitCodes: (number | null | undefined)[] = [];
        for (const port of ports) {
          // SIGTERM and wait for the exit, then a new process on the same port, as an orchestrator upgrades.
          exitCodes.push(await current.get(port)!.stop());
          const next = await start(port);
          processes.push(next);
          current.set(port, next);
          await expect.poll(allReady, { timeout: 60_000 }).toBe(true);
          // The new process serves its share before the next one goes.
          await progressed(iterations);
        }
        expect(exitCodes).toEqual([0, 0]);
      } finally {
        running = false;
        await load;
      }

      expect(failures, failures.slice(0, 20).join("\n")).toEqual([]);
      expect(balancer.stats.errors).toEqual([]);
      expect(signedUp.length).toBe(clients);

      // Every sign-up's email and event arrive once the queues drain (other instances take over what a stopped
      // one handed back, without waiting out a lease).
      const addresses = signedUp.map((entry) => entry.email);
      const received = () => occurrences(smtp!.messages.flatMap((message) => message.envelope.to));
      const lost = () => addresses.filter((address) => !received().has(address));
      await expect
        .poll(() => lost().length, { timeout: 120_000 })
        .toBe(0)
        .catch(async (error: Error) => {
          const rows = await database!.query(
            `select "to", status, attempts, error, created_at, updated_at, next_attempt_at from sent_emails where "to" ?| $1`,
            [lost()],
          );
          const logs = processes.flatMap((product, index) =>
            product
              .log()
              .split("\n")
              .filter((line) => /error|fail|SIGTERM|Stopped|running at/i.test(line))
              .map((line) => `[process ${index}] ${line.slice(0, 600)}`),
          );
          throw new Error(
            `${error.message}\nlost emails: ${JSON.stringify(rows, null, 1)}\n${logs.join("\n")}`,
          );
        });
      const events = () => occurrences(receiver!.created);
      await expect
        .poll(() => signedUp.filter((entry) => !events().has(entry.userId)).length, { timeout: 120_000 })
        .toBe(0);
      // Nothing went out twice: a graceful drain finishes or hands back before anything is cut short.
      expect(addresses.filter((address) => received().get(address) !== 1)).toEqual([]);
      expect(signedUp.filter((entry) => events().get(entry.userId) !== 1)).toEqual([]);

      const serverErrors = processes.flatMap((product) => product.serverErrors());
      expect(serverErrors).toEqual([]);
      console.log(
        `rolling restart: ${signedUp.length} users through 2 restarts, ${iterations} full rounds, 0 failed; ` +
          `balancer retries ${balancer.stats.retries}, /ready 503 answers seen ` +
          `${JSON.stringify(Object.fromEntries(balancer.stats.notReadyAnswers))}`,
      );
    });
  });
} else {
  describe("a restart of the single instance (embedded database)", () => {
    const dataDir = mkdtempSync(join(tmpdir(), "gatehouse-restart-"));
    const processes: ProductProcess[] = [];
    afterAll(async () => {
      await Promise.all(processes.map((product) => product.stop()));
      rmSync(dataDir, { recursive: true, force: true });
    });

    it("answers the requests in flight at SIGTERM, and delivers their emails after the restart", {
      timeout: 300_000,
    }, async () => {
      smtp = await startTestSmtpServer();
      const port = await freePort();
      const env = {
        NODE_ENV: "production",
        GATEHOUSE_SECRET: secret,
        GATEHOUSE_SMTP_URL: smtp.url,
        GATEHOUSE_EMAIL_FROM: "auth@restart.test",
        GATEHOUSE_SHUTDOWN_DELAY: "0",
        ...seedKeysEnv(keys),
      };
      const start = () =>
        startProduct({
          command: DEPLOY_START,
          port,
          dataDir,
          env: (baseUrl) => ({ ...env, GATEHOUSE_BASE_URL: baseUrl }),
        });
      const first = await start();
      processes.push(first);

      // Sign-ups whose headers the server has read (it answered `100 Continue`) but whose bodies it has not yet
      // got: they are in flight for certain when the signal arrives.
      const emails = Array.from(
        { length: 6 },
        (_, n) => `inflight-${n}-${randomBytes(3).toString("hex")}@restart.test`,
      );
      const held = emails.map((email) =>
        heldRequest(port, "/api/v1/auth/password/sign-up", {
          email,
          password: PASSWORD,
          verification_callback_url: `${first.baseUrl}/handler/email-verification`,
        }),
      );
      await Promise.all(held.map((request) => request.continued));

      const stopped = first.stop();
      // The drain has begun (the workers stopped claiming in the same step) once the process says so.
      await expect.poll(() => first.log().includes("SIGTERM: draining"), { timeout: 30_000 }).toBe(true);
      for (const request of held) request.send();
      const answers = await Promise.all(held.map((request) => request.answered));
      expect(
        answers.map((answer) => answer.status),
        JSON.stringify(answers),
      ).toEqual(emails.map(() => 200));
      expect(await stopped, first.log()).toBe(0);
      expect(first.log()).toContain("Stopped: every request answered");
      // Their emails were queued after the worker stopped: none went out before the exit.
      const delivered = () => smtp!.messages.flatMap((message) => message.envelope.to);
      expect(emails.filter((email) => delivered().includes(email))).toEqual([]);

      const second = await start();
      processes.push(second);
      await expect
        .poll(() => emails.filter((email) => !delivered().includes(email)).length, { timeout: 120_000 })
        .toBe(0);
      const counts = occurrences(delivered());
      expect(emails.map((email) => counts.get(email))).toEqual(emails.map(() => 1));
      expect([...first.serverErrors(), ...second.serverErrors()]).toEqual([]);
    });
  });
}
