import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { GatehouseServerApp } from "@gatehouse/js";
import { SERVER_ERROR_LOG_PREFIX } from "../../packages/server/src/http/server-error-log.ts";
import { freePort } from "../../packages/server/src/testing/ports.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** The internal project's keys as `npm start` keeps them beside the embedded database. */
export type InternalKeys = {
  publishableClientKey: string;
  secretServerKey: string;
  superSecretAdminKey: string;
};

export type ProductProcess = {
  baseUrl: string;
  dataDir: string;
  /** Everything the process printed so far, stdout and stderr interleaved as they arrived. */
  log(): string;
  /** Lines the server wrote for a 5xx answer (see http/server-error-log.ts). */
  serverErrors(): string[];
  internalKeys(): InternalKeys;
  /**
   * Stops the process the way an operator does (SIGTERM to npm and the server below it) and waits for it; resolves
   * with its exit code (null when a signal ended it, undefined when it had already exited before).
   */
  stop(): Promise<number | null | undefined>;
  /**
   * Crashes it: SIGKILL to the spawned process alone (start it with DEPLOY_START so that is the server), no chance
   * to finish a write or close the database. Resolves once it is gone; a data dir passed in is left as it is.
   */
  kill(): Promise<void>;
};

/** The test runner's own variables (NODE_ENV=test, VITEST_*) must not reach the product. */
function productEnvironment(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (
      name === "NODE_ENV" ||
      name === "DATABASE_URL" ||
      name.startsWith("VITEST") ||
      name.startsWith("GATEHOUSE_")
    )
      continue;
    env[name] = value;
  }
  return { ...env, ...extra };
}

/** The README's commands: Quick start's `npm start`, and Deploy's start of the built server. */
export const QUICK_START = ["npm", "start"];
export const DEPLOY_START = [process.execPath, "--enable-source-maps", "packages/server/dist/main.js"];

/**
 * Runs the product the way the README tells a user to, from the repository root, with only environment variables to
 * configure it. Resolves once `/health` answers; rejects with the log if the process exits first or is not ready
 * in time.
 */
export async function startProduct(
  options: {
    command?: string[];
    /** Environment of the process, given the base URL it will answer on (a free port chosen here). */
    env?: (baseUrl: string) => Record<string, string>;
    /** The port to listen on, when the caller must know it before the start (a free one otherwise). */
    port?: number;
    /**
     * An existing GATEHOUSE_DATA_DIR, to start again on the data of a stopped or killed process; the caller owns it
     * and removes it. Without it a fresh one is made here and removed by `stop()`.
     */
    dataDir?: string;
    /** Where it runs: the repository root unless told, as the README's commands are run from there. */
    cwd?: string;
  } = {},
): Promise<ProductProcess> {
  const [program, ...args] = options.command ?? QUICK_START;
  const port = options.port ?? (await freePort());
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), "gatehouse-product-"));
  const ownsDataDir = options.dataDir === undefined;
  const baseUrl = `http://localhost:${port}`;
  let output = "";
  const child: ChildProcess = spawn(program!, args, {
    cwd: options.cwd ?? ROOT,
    env: productEnvironment({ PORT: String(port), GATEHOUSE_DATA_DIR: dataDir, ...options.env?.(baseUrl) }),
    // Its own process group, so stopping it reaches the server that npm started.
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));

  const running = () => child.exitCode === null && child.signalCode === null;
  const stop = async () => {
    let code: number | null | undefined;
    if (running()) {
      process.kill(-child.pid!, "SIGTERM");
      code = await exited;
    }
    if (ownsDataDir) rmSync(dataDir, { recursive: true, force: true });
    return code;
  };
  const kill = async () => {
    if (running()) {
      process.kill(child.pid!, "SIGKILL");
      await exited;
    }
  };

  const deadline = Date.now() + 120_000;
  let exitCode: number | null | undefined;
  void exited.then((code) => {
    exitCode = code;
  });
  while (true) {
    if (exitCode !== undefined)
      throw new Error(`${program} ${args.join(" ")} exited with ${exitCode} before it was ready:\n${output}`);
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`${program} ${args.join(" ")} was not ready within 120 s:\n${output}`);
    }
    const healthy = await fetch(`${baseUrl}/health`).then(
      (response) => response.ok,
      () => false,
    );
    if (healthy) break;
    // Polls the port the process is bringing up; each failed connection returns at once.
    await new Promise((resolve) => setTimeout(resolve, 100));
  }

  return {
    baseUrl,
    dataDir,
    log: () => output,
    serverErrors: () => output.split("\n").filter((line) => line.includes(SERVER_ERROR_LOG_PREFIX)),
    internalKeys: () => JSON.parse(readFileSync(join(dataDir, "internal-keys.json"), "utf8")) as InternalKeys,
    stop,
    kill,
  };
}

/** A dashboard account (a user of `internal`) as the server has it, read with the process's internal keys. */
export async function dashboardUser(product: ProductProcess, email: string) {
  const internal = new GatehouseServerApp({
    projectId: "internal",
    baseUrl: product.baseUrl,
    tokenStore: "memory",
    ...product.internalKeys(),
  });
  const [user] = await internal.listUsers({ query: email });
  return user ?? null;
}
