import { createInterface } from "node:readline";
import { eq } from "drizzle-orm";
import { startGatehouse } from "../../../js/src/testing/gatehouse-server.ts";
import { verificationCodes } from "../../../server/src/features/verification-codes/schema.ts";
import { expireRows } from "../../../server/src/testing/time.ts";

/**
 * The real Gatehouse of the component tests, in a plain Node process of its own: the tests run under happy-dom,
 * whose globals (URL, Request, fetch) replace Node's and would break the server if it ran in the same process.
 * It prints `{"baseUrl": …}` once listening, then answers one JSON request per line on stdin with one JSON line
 * on stdout, and stops when stdin closes.
 */
const gatehouse = await startGatehouse();

const operations: Record<string, (...args: any[]) => Promise<unknown>> = {
  createProject: (displayName?: string) => gatehouse.createProject(displayName),
  latestEmailCode: (projectId: string, address: string) => gatehouse.latestEmailCode(projectId, address),
  // Expiring by updating rows, not by waiting (DECISIONS.md, Testing).
  expireCodes: (projectId: string) =>
    expireRows(gatehouse.gatehouse, verificationCodes, eq(verificationCodes.projectId, projectId)),
};

process.stdout.write(`${JSON.stringify({ baseUrl: gatehouse.baseUrl })}\n`);

const lines = createInterface({ input: process.stdin });
lines.on("line", async (line) => {
  const { id, operation, args } = JSON.parse(line) as { id: number; operation: string; args: unknown[] };
  try {
    const run = operations[operation];
    if (!run) throw new Error(`Unknown operation ${operation}`);
    process.stdout.write(`${JSON.stringify({ id, result: await run(...args) })}\n`);
  } catch (error) {
    process.stdout.write(`${JSON.stringify({ id, error: String((error as Error).message ?? error) })}\n`);
  }
});
lines.on("close", async () => {
  await gatehouse.close();
  process.exit(0);
});
