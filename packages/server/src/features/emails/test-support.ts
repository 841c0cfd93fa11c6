import { afterAll, afterEach, beforeAll } from "vitest";
import type { AppDeps } from "../../deps.ts";
import { createTestServer, type TestServer } from "../../testing/harness.ts";
import { startTestSmtpServer, type TestSmtpServer } from "../../testing/smtp-server.ts";
import { type EmailWorker, type EmailWorkerOptions, startEmailWorker } from "./worker.ts";

/**
 * Stops the worker the server may have started at boot, so that a test's own workers (with their own env and
 * options) are the only ones delivering, and deliveries happen exactly when the test drains.
 */
export async function detachBootWorker(server: TestServer): Promise<void> {
  const booted = server.deps.emailWorker as Partial<EmailWorker> | undefined;
  server.deps.emailWorker = undefined;
  await booted?.stop?.();
}

/**
 * The opening of the tests that run email workers themselves: one server for the file with its boot worker
 * detached, and a test SMTP server, handed to `opened` before the first test and closed after the last.
 * `startWorker` starts a worker that is stopped after the test.
 */
export function openEmailWorkerTestFile(
  opened: (file: { server: TestServer; smtp: TestSmtpServer }) => void,
) {
  let server: TestServer | undefined;
  let smtp: TestSmtpServer | undefined;
  const workers: EmailWorker[] = [];
  beforeAll(async () => {
    server = await createTestServer();
    await detachBootWorker(server);
    smtp = await startTestSmtpServer();
    opened({ server, smtp });
  });
  afterEach(async () => {
    await Promise.all(workers.splice(0).map((w) => w.stop()));
  });
  afterAll(async () => {
    await smtp?.close();
    await server?.close();
  });
  return {
    startWorker(deps: AppDeps, options: EmailWorkerOptions = {}) {
      const started = startEmailWorker(deps, options);
      workers.push(started);
      return started;
    },
  };
}
