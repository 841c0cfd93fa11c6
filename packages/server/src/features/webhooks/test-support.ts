import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll } from "vitest";
import type { Database } from "../../db/index.ts";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
import { webhookDeliveries } from "./schema.ts";
import { startWebhookWorker, type WebhookWorker, type WebhookWorkerOptions } from "./worker.ts";

export type ReceivedMessage = { headers: IncomingHttpHeaders; body: string; id: string; type: string };
export type Answer = { status: number; body?: string };

/**
 * A real HTTP receiver on a loopback port. Every request is kept; `answer` says what to reply to the n-th one
 * (0-based), 200 unless told.
 */
export async function startReceiver(
  answer: (index: number, message: ReceivedMessage) => Answer = () => ({ status: 200 }),
) {
  const messages: ReceivedMessage[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      let type = "";
      try {
        type = (JSON.parse(body) as { type?: string }).type ?? "";
      } catch {}
      const message = {
        headers: request.headers,
        body,
        id: String(request.headers["webhook-id"] ?? ""),
        type,
      };
      messages.push(message);
      const reply = answer(messages.length - 1, message);
      response.writeHead(reply.status, { "content-type": "text/plain" });
      response.end(reply.body ?? "ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    port,
    messages,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/**
 * A worker that never polls on its own: deliveries happen when the test drains it. A worker the server started at
 * boot (listening servers) is stopped first, so the test's is the only one.
 */
export async function startTestWorker(
  server: Pick<TestServer, "deps">,
  options: WebhookWorkerOptions = {},
): Promise<WebhookWorker> {
  await (server.deps.webhookWorker as Partial<WebhookWorker> | undefined)?.stop?.();
  const worker = startWebhookWorker(server.deps, { intervalMs: 3_600_000, ...options });
  server.deps.webhookWorker = worker;
  return worker;
}

/** Makes every waiting retry due now, instead of waiting out the backoff. */
export async function makeRetriesDue(db: Database): Promise<void> {
  await db
    .update(webhookDeliveries)
    .set({ nextAttemptAt: sql`now()` })
    .where(sql`${webhookDeliveries.status} = 'pending'`);
}

/** Creates an endpoint through the portal API with admin keys; returns its id and secret. */
export async function createEndpoint(
  server: Pick<TestServer, "request">,
  project: TestProject,
  body: Record<string, unknown>,
): Promise<{ id: string; secret: string }> {
  const response = await server.request("/api/v1/webhooks-portal/endpoints", {
    method: "POST",
    headers: project.headers("admin"),
    body,
  });
  if (response.status !== 201) throw new Error(`Endpoint refused: ${response.status} ${response.text}`);
  return { id: response.body.id, secret: response.body.secret };
}

/**
 * The Standard Webhooks check written independently of the server's signing code (WebCrypto instead of
 * node:crypto's Hmac, its own parsing): true if any `v1,` entry of the signature header matches.
 */
export async function independentlyVerified(
  secret: string,
  headers: IncomingHttpHeaders,
  body: string,
  prefix = "webhook",
) {
  const id = String(headers[`${prefix}-id`]);
  const timestamp = String(headers[`${prefix}-timestamp`]);
  const keyBytes = Uint8Array.from(atob(secret.replace(/^whsec_/, "")), (c) => c.charCodeAt(0));
  const key = await crypto.subtle.importKey("raw", keyBytes, { name: "HMAC", hash: "SHA-256" }, false, [
    "sign",
  ]);
  const mac = new Uint8Array(
    await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(`${id}.${timestamp}.${body}`)),
  );
  const expected = btoa(String.fromCharCode(...mac));
  return String(headers[`${prefix}-signature`])
    .split(" ")
    .some((entry) => entry === `v1,${expected}`);
}

/**
 * The opening of the webhook test files: a server whose worker the tests drive (startTestWorker), with what `setUp`
 * makes of it, handed to `opened` before the first test; worker and server are stopped after the last test.
 * `receiver` starts a receiver that is closed after the test.
 */
export function openWebhookTestFile<T extends object>(
  opened: (file: T & { server: TestServer; worker: WebhookWorker }) => void,
  setUp: (server: TestServer) => Promise<T> = async () => ({}) as T,
) {
  let server: TestServer | undefined;
  let worker: WebhookWorker | undefined;
  const receivers: Receiver[] = [];
  beforeAll(async () => {
    server = await createTestServer();
    worker = await startTestWorker(server);
    opened({ ...(await setUp(server)), server, worker });
  });
  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
  });
  afterAll(async () => {
    await worker?.stop();
    await server?.close();
  });
  return {
    async receiver(...args: Parameters<typeof startReceiver>) {
      const started = await startReceiver(...args);
      receivers.push(started);
      return started;
    },
  };
}
