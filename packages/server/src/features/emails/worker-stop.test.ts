/**
 * A stopping worker (a draining instance, main.ts) hands back what it claimed and could not finish, so another
 * instance sends it at once rather than after the five-minute lease.
 */
import net from "node:net";
import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestServer, type TestServer } from "../../testing/harness.ts";
import { sendBuiltInEmail } from "./built-in.ts";
import { sentEmails } from "./schema.ts";
import { detachBootWorker } from "./test-support.ts";
import { startEmailWorker } from "./worker.ts";

let server: TestServer;
let silent: net.Server;
const sockets = new Set<net.Socket>();

beforeAll(async () => {
  server = await createTestServer();
  await detachBootWorker(server);
  // An SMTP server that accepts the connection and never greets: the send hangs until it is cut short.
  silent = net.createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => silent.close(resolve));
  await server.close();
});

it("hands a send still running at the deadline back to the queue, due now", async () => {
  const project = await server.createProject("Stopping");
  await project.configure({
    "emails.server": {
      isShared: false,
      host: "127.0.0.1",
      port: (silent.address() as net.AddressInfo).port,
      senderEmail: "team@stopping.test",
    },
  });
  const queued = await sendBuiltInEmail(
    server.deps,
    { id: project.id, displayName: "Stopping" },
    { kind: "password_reset", to: "someone@example.com", variables: { link: "http://localhost:8102/reset" } },
  );
  const row = async () =>
    (
      await server.deps.db
        .select()
        .from(sentEmails)
        .where(and(eq(sentEmails.projectId, project.id), eq(sentEmails.id, queued.id)))
    )[0]!;
  const worker = startEmailWorker(server.deps, { intervalMs: 3_600_000 });
  worker.wake();
  await expect.poll(async () => (await row()).status, { timeout: 30_000 }).toBe("sending");
  expect(worker.isRunning()).toBe(true);

  await worker.stop({ handBackAfterMs: 300 });

  expect(worker.isRunning()).toBe(false);
  const handedBack = await row();
  expect(handedBack.status).toBe("queued");
  // Due now (the lease would have made it wait five minutes); the database's clock decides, as claims do.
  const [{ due }] = (await server.deps.db
    .select({ due: sql<boolean>`${sentEmails.nextAttemptAt} <= now()` })
    .from(sentEmails)
    .where(eq(sentEmails.id, queued.id))) as [{ due: boolean }];
  expect(due).toBe(true);
  // The send may have gone out before it was cut short, so the claim counts as an attempt.
  expect(handedBack.attempts).toBe(1);
});
