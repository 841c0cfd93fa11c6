import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { promisify } from "node:util";
import { REPOSITORY_ROOT } from "../package-root.ts";
import { freePort } from "./ports.ts";

export type PgBouncer = {
  port: number;
  /** The same database as `directUrl`, reached through the pooler. */
  urlFor: (directUrl: string) => string;
  stop: () => Promise<void>;
};

/**
 * Debian's PgBouncer in front of the local PostgreSQL (127.0.0.1:5432) on a free port, started by the same script
 * CI and the benches use (scripts/start-pgbouncer.sh; `.ci/run` installs the package).
 */
export async function startPgBouncer(mode: "transaction" | "session" = "transaction"): Promise<PgBouncer> {
  const port = await freePort();
  try {
    await promisify(execFile)("bash", [`${REPOSITORY_ROOT}/scripts/start-pgbouncer.sh`, String(port), mode], {
      cwd: REPOSITORY_ROOT,
    });
  } catch (error) {
    const failed = error as { stderr?: string; message: string };
    throw new Error(
      `PgBouncer did not start (is Debian's pgbouncer installed?): ${failed.stderr || failed.message}`,
    );
  }
  return {
    port,
    urlFor: (directUrl) => {
      const url = new URL(directUrl);
      url.hostname = "127.0.0.1";
      url.port = String(port);
      return url.toString();
    },
    stop: async () => {
      const pid = Number(readFileSync(`/tmp/gatehouse-pgbouncer-${port}/pgbouncer.pid`, "utf8").trim());
      try {
        process.kill(pid, "SIGTERM");
      } catch {
        return;
      }
      // Its pid file goes when it has exited; bounded, since a stuck pooler must not hang the suite.
      for (let i = 0; i < 100; i++) {
        try {
          process.kill(pid, 0);
        } catch {
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
  };
}
