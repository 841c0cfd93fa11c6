import type { TestServer } from "../../testing/harness.ts";
import type { EmailWorker } from "./worker.ts";

/**
 * Stops the worker the server may have started at boot, so that a test's own workers (with their own env and
 * options) are the only ones delivering, and deliveries happen exactly when the test drains.
 */
export async function detachBootWorker(server: TestServer): Promise<void> {
  const booted = server.deps.emailWorker as Partial<EmailWorker> | undefined;
  server.deps.emailWorker = undefined;
  await booted?.stop?.();
}
