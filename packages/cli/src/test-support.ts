/** Helpers of the CLI tests: run the built bin as a child process, and give it a logged-in owner. */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ListeningServer } from "../../server/src/testing/listening-server.ts";
import { createSignedInUser } from "../../server/src/testing/users.ts";

/** What `npm run build` makes (scripts/build.mjs `cli`; vitest's global setup builds it). */
export const BIN = fileURLToPath(new URL("../dist/gatehouse.js", import.meta.url));

function withoutForceColor(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { FORCE_COLOR: _ignored, ...rest } = env;
  return rest;
}

export type CliRun = { code: number | null; stdout: string; stderr: string };

export type CliProcess = {
  /** Resolves with the first stderr text matching `pattern` (e.g. the login link). */
  waitForStderr(pattern: RegExp): Promise<RegExpMatchArray>;
  done: Promise<CliRun>;
};

/** Starts `gatehouse <args>` with no terminal (stdin closed), in `cwd`, with `env` added. */
export function startCli(
  args: string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
): CliProcess {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: options.cwd ?? process.cwd(),
    env: { ...withoutForceColor(process.env), NO_COLOR: "1", ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  const waiters: { pattern: RegExp; resolve: (match: RegExpMatchArray) => void }[] = [];
  child.stdout.on("data", (chunk) => {
    stdout += chunk;
  });
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
    for (const waiter of [...waiters]) {
      const match = stderr.match(waiter.pattern);
      if (match) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(match);
      }
    }
  });
  const done = new Promise<CliRun>((resolve) =>
    child.on("close", (code) => resolve({ code, stdout, stderr })),
  );
  return {
    done,
    waitForStderr: (pattern) =>
      new Promise((resolve, reject) => {
        const match = stderr.match(pattern);
        if (match) return resolve(match);
        waiters.push({ pattern, resolve });
        void done.then((run) => reject(new Error(`gatehouse exited (${run.code}) first:\n${run.stderr}`)));
      }),
  };
}

export const runCli = (args: string[], options: { cwd?: string; env?: Record<string, string> } = {}) =>
  startCli(args, options).done;

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `gatehouse-cli-${prefix}-`));
}

/** A dashboard user (internal project) and a config dir holding their login, as `gatehouse login` leaves it. */
export async function loggedInOwner(server: ListeningServer, email = `owner-${Date.now()}@cli.example`) {
  const owner = await createSignedInUser(server, "internal", {
    primaryEmail: email,
    primaryEmailVerified: true,
  });
  const configDir = tempDir("config");
  mkdirSync(configDir, { recursive: true });
  writeFileSync(
    join(configDir, "credentials.json"),
    JSON.stringify({
      logins: {
        [server.baseUrl]: {
          refreshToken: owner.refreshToken,
          userId: owner.user.id,
          email,
          savedAt: new Date().toISOString(),
        },
      },
    }),
    { mode: 0o600 },
  );
  const env = { GATEHOUSE_CONFIG_DIR: configDir, GATEHOUSE_API_URL: server.baseUrl };
  return {
    ...owner,
    configDir,
    env,
    run: (args: string[], options: { cwd?: string; env?: Record<string, string> } = {}) =>
      runCli(args, { ...options, env: { ...env, ...options.env } }),
  };
}
