/**
 * A stopping worker (a draining instance, main.ts) hands back a delivery still in flight at its deadline, so another
 * instance sends it at once rather than after the lease.
 */
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestServer, type TestServer } from "../../testing/harness.ts";
import { recordEvents } from "../events/record.ts";
import { webhookDeliveries } from "./schema.ts";
import { createEndpoint } from "./test-support.ts";
import { startWebhookWorker, type WebhookWorker } from "./worker.ts";

let server: TestServer;
let worker: WebhookWorker | undefined;
// A receiver that takes the request and never answers.
const waiting: ServerResponse[] = [];
const receiver = createServer((_request, response) => waiting.push(response));

beforeAll(async () => {
  server = await createTestServer();
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
});
afterAll(async () => {
  for (const response of waiting) response.destroy();
  // The attempt that was cut short ends now that its request failed; it writes nothing (the claim is gone).
  await worker?.stop();
  await new Promise((resolve) => receiver.close(resolve));
  await server.close();
});

it("hands a delivery still in flight at the deadline back, due now", async () => {
  const project = await server.createProject("Stopping hooks");
  await createEndpoint(server, project, {
    url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`,
  });
  await recordEvents(server.deps.db, project.id, [{ type: "team.created", data: { n: 1 } }]);
  const delivery = () =>
    server.deps.db
      .select({
        status: webhookDeliveries.status,
        attempts: webhookDeliveries.attempts,
        due: sql<boolean>`${webhookDeliveries.nextAttemptAt} <= now()`,
      })
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.projectId, project.id));
  worker = startWebhookWorker(server.deps, { intervalMs: 3_600_000, timeoutMs: 60_000 });
  worker.wake();
  await expect.poll(async () => (await delivery())[0]?.status, { timeout: 30_000 }).toBe("sending");
  await expect.poll(() => waiting.length, { timeout: 30_000 }).toBe(1);

  await worker.stop({ handBackAfterMs: 300 });

  expect(worker.isRunning()).toBe(false);
  // Possibly received (the request was sent), so the claim counts; the next worker sends it again, same id.
  expect(await delivery()).toEqual([{ status: "pending", attempts: 1, due: true }]);
});
