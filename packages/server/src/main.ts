import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { serve } from "@hono/node-server";
import { bootGatehouse } from "./bootstrap.ts";
import { readServerEnv, type ServerEnv } from "./env.ts";
import type { CreatedKeys } from "./features/project-keys/service.ts";
import { StartupError } from "./startup-error.ts";

// Marks for bench/start.mjs, which reads them from a preloaded module: where the start's time goes.
performance.mark("gatehouse:modules-loaded");
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

const server = serve({ fetch: gatehouse.app.fetch, port: env.port }, (info) => {
  clearInterval(keepLoopAlive);
  performance.mark("gatehouse:listening");
  const seconds = ((performance.now() - startedAt) / 1000).toFixed(1);
  const lines = [
    "",
    `  Gatehouse is running at ${env.baseUrl} (ready in ${seconds} s, port ${info.port})`,
    "",
    `  → Open ${env.baseUrl}/ and sign up: the dashboard creates your first project and shows its keys.`,
    "",
    `  Database     ${env.databaseUrl ? "PostgreSQL (DATABASE_URL)" : `embedded PGlite in ${path.join(env.dataDir, "pglite")}`}`,
    `  Dashboard    ${env.baseUrl}/  (sign up there: every dashboard user can create and manage projects)`,
    `  Health       ${env.baseUrl}/health`,
    `  API docs     ${env.baseUrl}/api/v1/docs`,
    "",
    '  The internal project (id "internal") is the dashboard\'s own project; its keys:',
    internalKeys
      ? [
          `    publishable client key   ${internalKeys.publishableClientKey ?? "-"}`,
          `    secret server key        ${internalKeys.secretServerKey ?? "-"}`,
          `    super secret admin key   ${internalKeys.superSecretAdminKey ?? "-"}`,
        ].join("\n")
      : "    (generated on first start; not stored here. Set GATEHOUSE_SEED_INTERNAL_* to fix them.)",
    "",
    ...(env.seed.adminEmail
      ? [`  Seeded admin: sign in to the dashboard as ${env.seed.adminEmail}.`, ""]
      : []),
    "  Try it:",
    `    curl ${env.baseUrl}/api/v1/projects/current -H 'x-stack-project-id: internal' -H 'x-stack-access-type: client'`,
    `    curl ${env.baseUrl}/api/v1/internal/projects/current -H 'x-stack-project-id: internal' \\`,
    `      -H 'x-stack-access-type: admin' -H 'x-stack-super-secret-admin-key: <super secret admin key>'`,
    "",
  ];
  console.log(lines.join("\n"));
});

function shutdown() {
  server.close();
  gatehouse.close().finally(() => process.exit(0));
}
process.on("SIGINT", shutdown);
process.on("SIGTERM", shutdown);
