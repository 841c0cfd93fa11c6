import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { bootGatehouse } from "./bootstrap.ts";
import { readServerEnv, readServingSettings, type ServerEnv } from "./env.ts";
import type { CreatedKeys } from "./features/project-keys/service.ts";
import { routeConsoleToLogger } from "./observability/logger.ts";
import { type Listeners, listen, shutDown } from "./serving.ts";
import { StartupError } from "./startup-error.ts";

// Marks for bench/start.mjs, which reads them from a preloaded module: where the start's time goes.
performance.mark("gatehouse:modules-loaded");
if (process.argv[2] === "migrate") {
  const { runMigrateCommand } = await import("./migrate-command.ts");
  process.exit(await runMigrateCommand(process.env));
}
const startedAt = performance.now();
let env: ServerEnv;
try {
  env = readServerEnv();
} catch (error) {
  // Configuration mistakes: the message says what to set; a stack trace would bury it.
  console.error(`Gatehouse cannot start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
// While PGlite's WebAssembly compiles, nothing keeps the event loop busy, so Node leaves it and waits for every
// background task in NodePlatform::DrainTasks, then runs the rest of the boot from there. By then the background
// tasks include V8's optimising recompilation of the hot wasm functions, and the listening socket was not served
// until they were all done: 0.5-1.2 s after "listening" on a 2-core machine (bench/start.mjs says more). A timer
// keeps the loop running until the server listens, so that work stays in the background.
const keepLoopAlive = setInterval(() => {}, 60_000);
const gatehouse = await bootGatehouse(env).catch((error: unknown) => {
  if (!(error instanceof StartupError)) throw error;
  console.error(`Gatehouse cannot start: ${error.message}`);
  process.exit(1);
});
performance.mark("gatehouse:booted");
if (gatehouse.deps.observability.settings.logFormat === "json") {
  routeConsoleToLogger(gatehouse.deps.observability.logger);
}
const serving = env.serving ?? readServingSettings({}, env.isDevelopment);

// Keys generated on first start are kept beside the embedded database (which already holds the master secret),
// so a newcomer can find them again. With fixed seed keys nothing is written.
const keysFile = path.join(env.dataDir, "internal-keys.json");
if (gatehouse.seed.generatedKeys) {
  mkdirSync(env.dataDir, { recursive: true });
  writeFileSync(keysFile, `${JSON.stringify(gatehouse.seed.generatedKeys, null, 2)}\n`, { mode: 0o600 });
}
const internalKeys: CreatedKeys | null = env.seed.publishableClientKey
  ? {
      publishableClientKey: env.seed.publishableClientKey,
      secretServerKey: env.seed.secretServerKey,
      superSecretAdminKey: env.seed.superSecretAdminKey,
    }
  : existsSync(keysFile)
    ? (JSON.parse(readFileSync(keysFile, "utf8")) as CreatedKeys)
    : null;

/**
 * Development prints the keys, for the newcomer's first curl. Production never does: logs are shipped and kept
 * where secrets must not be, so it says where the keys are instead.
 */
function internalKeyLines(): string[] {
  if (env.isDevelopment) {
    return [
      '  The internal project (id "internal") is the dashboard\'s own project; its keys:',
      internalKeys
        ? [
            `    publishable client key   ${internalKeys.publishableClientKey ?? "-"}`,
            `    secret server key        ${internalKeys.secretServerKey ?? "-"}`,
            `    super secret admin key   ${internalKeys.superSecretAdminKey ?? "-"}`,
          ].join("\n")
        : "    (generated on first start; not stored here. Set GATEHOUSE_SEED_INTERNAL_* to fix them.)",
    ];
  }
  return [
    '  The internal project (id "internal") is the dashboard\'s own project. Its keys are not printed in production:',
    env.seed.publishableClientKey
      ? "    they are the GATEHOUSE_SEED_INTERNAL_* values of this server's environment."
      : existsSync(keysFile)
        ? `    generated on first start, they are in ${keysFile} (readable by this user only).`
        : "    the instance that first started on this database generated them; set GATEHOUSE_SEED_INTERNAL_* to fix them.",
    "    Projects' own keys are made and shown in the dashboard.",
  ];
}

let listeners: Listeners;
try {
  listeners = await listen(gatehouse.app.fetch, serving, env.port);
} catch (error) {
  console.error(`Gatehouse cannot start: cannot listen on port ${env.port}: ${(error as Error).message}`);
  await gatehouse.close();
  process.exit(1);
}
clearInterval(keepLoopAlive);
performance.mark("gatehouse:listening");
const seconds = ((performance.now() - startedAt) / 1000).toFixed(1);
const { logger, settings: observed } = gatehouse.deps.observability;
/** JSON logs stay one JSON object a line (GATEHOUSE_LOG_FORMAT, production); the banner is for a terminal. */
const say = (text: string) => (observed.logFormat === "json" ? logger.info(text.trim()) : console.log(text));
const banner =
  observed.logFormat === "json"
    ? (text: string) =>
        logger.info(
          {
            port: listeners.port,
            ready_seconds: Number(seconds),
            internal_keys: internalKeyLines().slice(1).join(" ").replace(/\s+/g, " ").trim(),
          },
          text.trim().split("\n")[0]!,
        )
    : (text: string) => console.log(text);
banner(
  [
    "",
    `  Gatehouse is running at ${env.baseUrl} (ready in ${seconds} s, port ${listeners.port})`,
    "",
    `  → Open ${env.baseUrl}/ and sign up: the dashboard creates your first project and shows its keys.`,
    "",
    `  Database     ${env.databaseUrl ? "PostgreSQL (DATABASE_URL)" : `embedded PGlite in ${path.join(env.dataDir, "pglite")}`}`,
    `  Listening    ${listeners.addresses.join(", ")}${serving.hosts ? " (GATEHOUSE_HOST sets the addresses)" : ""}`,
    `  Dashboard    ${env.baseUrl}/  (sign up there: every dashboard user can create and manage projects)`,
    `  Health       ${env.baseUrl}/health (live), ${env.baseUrl}/ready (ready for traffic)`,
    `  API docs     ${env.baseUrl}/api/v1/docs`,
    "",
    ...internalKeyLines(),
    "",
    ...(env.seed.adminEmail
      ? [`  Seeded admin: sign in to the dashboard as ${env.seed.adminEmail}.`, ""]
      : []),
    "  Try it:",
    `    curl ${env.baseUrl}/api/v1/projects/current -H 'x-stack-project-id: internal' -H 'x-stack-access-type: client'`,
    `    curl ${env.baseUrl}/api/v1/internal/projects/current -H 'x-stack-project-id: internal' \\`,
    `      -H 'x-stack-access-type: admin' -H 'x-stack-super-secret-admin-key: <super secret admin key>'`,
    "",
  ].join("\n"),
);

let stopping = false;
function onSignal(signal: NodeJS.Signals) {
  if (stopping) {
    // A second Ctrl-C: whoever asks twice does not want to wait for the drain.
    say(`  ${signal} again: stopping now.`);
    process.exit(1);
  }
  stopping = true;
  say(
    `  ${signal}: draining (/ready answers 503${serving.delayMs ? `, listening ${serving.delayMs / 1000} s more` : ""}, ` +
      `at most ${serving.timeoutMs / 1000} s)`,
  );
  shutDown(gatehouse, listeners, serving, say).then(
    (clean) => {
      if (clean) say("  Stopped: every request answered, the workers' claims finished or handed back.");
      process.exit(clean ? 0 : 1);
    },
    (error: unknown) => {
      console.error("Shutdown failed:", error);
      process.exit(1);
    },
  );
}
process.on("SIGINT", onSignal);
process.on("SIGTERM", onSignal);
