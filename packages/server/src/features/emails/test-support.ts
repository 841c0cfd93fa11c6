import { afterAll, afterEach, beforeAll } from "vitest";
import type { AppDeps } from "../../deps.ts";
import type { ServerEnv } from "../../env.ts";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
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

type ServerAndProject = { server: TestServer; project: TestProject };
export type SmtpDeliveryTestFile = ServerAndProject & { smtp: TestSmtpServer; worker: EmailWorker };

/**
 * The opening of the tests that deliver through the outbox worker to a real SMTP server: the SMTP server, a server
 * for the file (`serverEnv`, from the SMTP server) with a worker on it, and a project named `project`, which sends
 * through the SMTP server itself when given a `sender`; handed to `opened`, all stopped after the last test.
 */
export function openSmtpDeliveryTestFile(
  options: {
    project: string;
    sender?: { senderEmail: string; senderName?: string };
    serverEnv?: (smtp: TestSmtpServer) => Partial<ServerEnv>;
    worker?: EmailWorkerOptions;
  },
  opened: (file: SmtpDeliveryTestFile) => void,
): void {
  let file: SmtpDeliveryTestFile | undefined;
  beforeAll(async () => {
    const smtp = await startTestSmtpServer();
    const server = await createTestServer(options.serverEnv?.(smtp));
    const worker = startEmailWorker(server.deps, options.worker);
    const project = await server.createProject(options.project);
    if (options.sender) {
      await project.configure({
        "emails.server": { isShared: false, host: "127.0.0.1", port: smtp.port, ...options.sender },
      });
    }
    file = { smtp, server, worker, project };
    opened(file);
  });
  afterAll(async () => {
    await file?.worker.stop();
    await file?.server.close();
    await file?.smtp.close();
  });
}
