/**
 * Idle is idle: a webhook worker polls only as a backstop (an hour here), yet an event committed by any connection
 * is delivered at once, because the insert notifies at commit (background/work-notices.ts), and a retry goes out
 * when it falls due, because the worker asks the queue when its next row is due. Neither could happen within the
 * test's wait if the worker only polled.
 */
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { wakeWorkersOnNotice } from "../../background/work-notices.ts";
import { bootGatehouse, type Gatehouse } from "../../bootstrap.ts";
import { testApiOf, testEnv } from "../../testing/harness.ts";
import { openTestDatabase } from "../../testing/test-database.ts";
import { recordEvents } from "../events/record.ts";
import { createEndpoint, type Receiver, startReceiver, startTestWorker } from "./test-support.ts";
import type { WebhookWorker } from "./worker.ts";

const AN_HOUR = 3_600_000;

let gatehouse: Gatehouse;
let worker: WebhookWorker;
let stopHearing: () => Promise<void>;
const receivers: Receiver[] = [];

beforeAll(async () => {
  gatehouse = await bootGatehouse(testEnv(), await openTestDatabase(), {
    emailWorker: false,
    webhookWorker: false,
  });
  // A first attempt that fails is retried 300 ms later; nothing else would make the worker look within the hour.
  worker = await startTestWorker(gatehouse, { intervalMs: AN_HOUR, retryDelaysMs: [300] });
  stopHearing = await wakeWorkersOnNotice(gatehouse.database, (queue) =>
    queue === "webhooks" ? gatehouse.deps.webhookWorker : null,
  );
});
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
});
afterAll(async () => {
  await stopHearing?.();
  await worker?.stop();
  await gatehouse?.close();
});

it("hears of an event when its transaction commits, and delivers it without polling", async () => {
  const api = testApiOf(gatehouse);
  const project = await api.createProject("Woken");
  const hook = await startReceiver();
  receivers.push(hook);
  await createEndpoint(api, project, { url: hook.url });
  const userId = crypto.randomUUID();
  await gatehouse.deps.db.transaction(async (tx) => {
    await recordEvents(tx, project.id, [{ type: "user.created", data: { id: userId }, userId }]);
    // Not committed yet: nothing can have been delivered.
    expect(hook.messages).toHaveLength(0);
  });
  await expect.poll(() => hook.messages.map((message) => message.type)).toEqual(["user.created"]);
});

it("retries when the retry falls due, without a wake-up or a poll", async () => {
  const api = testApiOf(gatehouse);
  const project = await api.createProject("Retried");
  const hook = await startReceiver((index) => ({ status: index === 0 ? 500 : 200 }));
  receivers.push(hook);
  await createEndpoint(api, project, { url: hook.url });
  await recordEvents(gatehouse.deps.db, project.id, [{ type: "stack.test", data: {} }]);
  await expect.poll(() => hook.messages.length).toBe(2);
  expect(hook.messages[1]!.id).toBe(hook.messages[0]!.id);
});
