/**
 * Webhook delivery end to end inside one server: events written with recordEvents reach a real HTTP receiver,
 * signed; retries follow the protocol's schedule with the same message id; filters and disabled endpoints hold.
 */
import { eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
import { recordEvents } from "../events/record.ts";
import { events } from "../events/schema.ts";
import { webhookDeliveries, webhookEndpoints } from "./schema.ts";
import {
  createEndpoint,
  independentlyVerified,
  makeRetriesDue,
  openWebhookTestFile,
  startTestWorker,
} from "./test-support.ts";
import { RETRY_DELAYS_MS, type WebhookWorker } from "./worker.ts";

let server: TestServer;
let worker: WebhookWorker;
const { receiver } = openWebhookTestFile((opened) => ({ server, worker } = opened));

const userData = (id: string) => ({
  id,
  primary_email: `${id.slice(0, 8)}@example.com`,
  display_name: "Ada",
});

async function deliveriesOf(endpointId: string) {
  return server.deps.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, endpointId));
}

describe("a committed event", () => {
  let project: TestProject;
  beforeAll(async () => {
    project = await server.createProject("Delivery");
  });

  it("reaches the endpoint signed, under both header sets, as {type, data}", async () => {
    const hook = await receiver();
    const endpoint = await createEndpoint(server, project, { url: hook.url });
    const userId = crypto.randomUUID();
    await recordEvents(server.deps.db, project.id, [
      { type: "user.created", data: userData(userId), userId },
    ]);
    await worker.drain();

    expect(hook.messages).toHaveLength(1);
    const [message] = hook.messages;
    expect(JSON.parse(message!.body)).toEqual({ type: "user.created", data: userData(userId) });
    expect(message!.headers["content-type"]).toBe("application/json");
    const [event] = await server.deps.db.select().from(events).where(eq(events.projectId, project.id));
    expect(message!.headers["webhook-id"]).toBe(event!.id);
    expect(message!.headers["svix-id"]).toBe(event!.id);
    expect(message!.headers["svix-signature"]).toBe(message!.headers["webhook-signature"]);
    expect(Math.abs(Number(message!.headers["webhook-timestamp"]) - Date.now() / 1000)).toBeLessThan(60);
    expect(await independentlyVerified(endpoint.secret, message!.headers, message!.body)).toBe(true);
    expect(await independentlyVerified(endpoint.secret, message!.headers, message!.body, "svix")).toBe(true);
    // The check can fail: another secret or another body does not verify.
    expect(
      await independentlyVerified(
        `whsec_${btoa("another key of 24 bytes!")}`,
        message!.headers,
        message!.body,
      ),
    ).toBe(false);
    expect(await independentlyVerified(endpoint.secret, message!.headers, `${message!.body} `)).toBe(false);

    const [delivery] = await deliveriesOf(endpoint.id);
    expect(delivery).toMatchObject({ status: "succeeded", attempts: 1, lastStatusCode: 200 });
    expect(delivery!.attemptLog).toEqual([
      expect.objectContaining({
        attempt: 1,
        status_code: 200,
        response: "ok",
        duration_ms: expect.any(Number),
      }),
    ]);
    await worker.drain();
    expect(hook.messages).toHaveLength(1);
  });

  it("goes only to enabled endpoints whose filter is empty or names its type", async () => {
    const own = await server.createProject("Filters");
    const all = await receiver();
    const teamsOnly = await receiver();
    const disabled = await receiver();
    await createEndpoint(server, own, { url: all.url });
    await createEndpoint(server, own, { url: teamsOnly.url, event_types: ["team.created", "team.deleted"] });
    await createEndpoint(server, own, { url: disabled.url, enabled: false });
    await recordEvents(server.deps.db, own.id, [
      { type: "user.created", data: userData(crypto.randomUUID()) },
      { type: "team.created", data: { id: crypto.randomUUID(), display_name: "T" } },
      { type: "user.deleted", data: { id: crypto.randomUUID(), teams: [] } },
    ]);
    await worker.drain();
    expect(all.messages.map((m) => m.type).sort()).toEqual(["team.created", "user.created", "user.deleted"]);
    expect(teamsOnly.messages.map((m) => m.type)).toEqual(["team.created"]);
    expect(disabled.messages).toEqual([]);
  });

  it("is not delivered to an endpoint of another project", async () => {
    const other = await server.createProject("Other");
    const hook = await receiver();
    await createEndpoint(server, other, { url: hook.url });
    await recordEvents(server.deps.db, project.id, [
      { type: "team.deleted", data: { id: crypto.randomUUID() } },
    ]);
    await worker.drain();
    expect(hook.messages).toEqual([]);
  });
});

describe("a failing receiver", () => {
  it("gets the message again with the same id until it answers 2xx: fails twice, then succeeds", async () => {
    const project = await server.createProject("Retries");
    const hook = await receiver((index) =>
      index < 2 ? { status: 500, body: `down ${index}` } : { status: 204 },
    );
    const endpoint = await createEndpoint(server, project, { url: hook.url });
    await recordEvents(server.deps.db, project.id, [{ type: "team.created", data: { id: "t1" } }]);

    await worker.drain();
    const [afterFirst] = await deliveriesOf(endpoint.id);
    expect(afterFirst).toMatchObject({ status: "pending", attempts: 1, lastStatusCode: 500 });
    // The first retry is 5 s later (the schedule's first step), so draining again sends nothing yet.
    const wait = afterFirst!.nextAttemptAt.getTime() - Date.now();
    expect(wait).toBeGreaterThan(RETRY_DELAYS_MS[0]! - 2_000);
    expect(wait).toBeLessThanOrEqual(RETRY_DELAYS_MS[0]!);
    await worker.drain();
    expect(hook.messages).toHaveLength(1);

    await makeRetriesDue(server.deps.db);
    await worker.drain();
    const [afterSecond] = await deliveriesOf(endpoint.id);
    expect(afterSecond!.nextAttemptAt.getTime() - Date.now()).toBeGreaterThan(RETRY_DELAYS_MS[1]! - 2_000);
    await makeRetriesDue(server.deps.db);
    await worker.drain();

    expect(hook.messages).toHaveLength(3);
    expect(new Set(hook.messages.map((m) => m.id)).size).toBe(1);
    for (const message of hook.messages) {
      expect(await independentlyVerified(endpoint.secret, message.headers, message.body)).toBe(true);
    }
    const [done] = await deliveriesOf(endpoint.id);
    expect(done).toMatchObject({ status: "succeeded", attempts: 3, lastStatusCode: 204 });
    expect(done!.attemptLog.map((a) => [a.attempt, a.status_code, a.response])).toEqual([
      [1, 500, "down 0"],
      [2, 500, "down 1"],
      [3, 204, ""],
    ]);
  });

  it("is given up after 8 attempts, each recorded (the last 10 kept)", async () => {
    const project = await server.createProject("Gives up");
    const hook = await receiver(() => ({ status: 503, body: "x".repeat(2_000) }));
    const endpoint = await createEndpoint(server, project, { url: hook.url });
    await recordEvents(server.deps.db, project.id, [{ type: "team.deleted", data: { id: "t2" } }]);
    await worker.drain();
    for (let attempt = 2; attempt <= 9; attempt++) {
      await makeRetriesDue(server.deps.db);
      await worker.drain();
    }
    expect(hook.messages).toHaveLength(8);
    const [delivery] = await deliveriesOf(endpoint.id);
    expect(delivery).toMatchObject({ status: "failed", attempts: 8, lastStatusCode: 503 });
    expect(delivery!.finishedAt).not.toBeNull();
    expect(delivery!.attemptLog).toHaveLength(8);
    expect(delivery!.attemptLog.every((a) => a.response.length === 500)).toBe(true);
  });

  it("records a refused connection as the attempt's error", async () => {
    const project = await server.createProject("Refused");
    const hook = await receiver();
    await hook.close();
    const endpoint = await createEndpoint(server, project, { url: hook.url });
    await recordEvents(server.deps.db, project.id, [{ type: "team.deleted", data: { id: "t3" } }]);
    await worker.drain();
    const [delivery] = await deliveriesOf(endpoint.id);
    expect(delivery).toMatchObject({ status: "pending", attempts: 1, lastStatusCode: null });
    expect(delivery!.attemptLog[0]!.response).toMatch(/Connection refused/);
  });

  it("takes a delivery over from a worker whose lease ran out, and that worker's late write is fenced off", async () => {
    const project = await server.createProject("Lease");
    const hook = await receiver();
    const endpoint = await createEndpoint(server, project, { url: hook.url });
    await recordEvents(server.deps.db, project.id, [{ type: "team.deleted", data: { id: "t4" } }]);
    await worker.drain();
    // As if a worker had claimed attempt 2 and died: `sending` with a lease that has run out.
    await server.deps.db
      .update(webhookDeliveries)
      .set({ status: "sending", attempts: 2, nextAttemptAt: sql`now() - interval '1 second'` })
      .where(eq(webhookDeliveries.endpointId, endpoint.id));
    await worker.drain();
    const [delivery] = await deliveriesOf(endpoint.id);
    expect(delivery).toMatchObject({ status: "succeeded", attempts: 3 });
    expect(hook.messages.map((m) => m.id)).toEqual([hook.messages[0]!.id, hook.messages[0]!.id]);
  });
});

describe("in production", () => {
  it("refuses at delivery time an address that became private (DNS can change), recording the attempt as blocked", async () => {
    const production = await createTestServer({ isDevelopment: false });
    const productionWorker = await startTestWorker(production);
    try {
      const project = await production.createProject("Rebinding");
      const hook = await receiver();
      // Saved while it resolved to a public address; now its host is loopback.
      const endpoint = await createEndpoint(production, project, { url: "https://93.184.215.14/hooks" });
      await production.deps.db
        .update(webhookEndpoints)
        .set({ url: hook.url.replace("127.0.0.1", "localhost") })
        .where(eq(webhookEndpoints.id, endpoint.id));
      await recordEvents(production.deps.db, project.id, [{ type: "team.deleted", data: { id: "t5" } }]);
      await productionWorker.drain();
      expect(hook.messages).toEqual([]);
      const [delivery] = await production.deps.db
        .select()
        .from(webhookDeliveries)
        .where(eq(webhookDeliveries.endpointId, endpoint.id));
      expect(delivery!.attemptLog[0]!.response).toMatch(
        /^Blocked: localhost resolves to (127\.0\.0\.1|::1), a loopback address/,
      );
    } finally {
      await productionWorker.stop();
      await production.close();
    }
  });
});
