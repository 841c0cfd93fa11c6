#!/usr/bin/env node
// How does `gatehouse users import` cope with a big export? Boots a real Gatehouse in-process (as the tests do),
// writes a JSON Lines file of N users (100,000 by default) with bcrypt hashes, runs the built `gatehouse` bin as a
// child process to import it (both passes: check everything, then create), and prints the time, the rate and the
// CLI's peak RSS (VmHWM, read from /proc while it runs), then signs one imported user in with the password behind
// their original hash. It imports the server's TypeScript sources, so it runs under tsx after `npm run build`:
//   npx tsx --conditions=gatehouse-source --tsconfig packages/server/tsconfig.json bench/cli-import.mjs [--users N]
// Embedded in-memory PGlite by default; with DATABASE_URL set, a fresh database on that PostgreSQL server.
import { spawn } from "node:child_process";
import { createWriteStream, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { hash as bcryptHash } from "@node-rs/bcrypt";
import { startListeningServer } from "../packages/server/src/testing/listening-server.ts";
import { createSignedInUser } from "../packages/server/src/testing/users.ts";

const { values } = parseArgs({ options: { users: { type: "string", default: "100000" } } });
const total = Number(values.users);
if (!Number.isInteger(total) || total < 1) {
  console.error(`--users must be a positive integer, got "${values.users}"`);
  process.exit(2);
}
const bin = fileURLToPath(new URL("../packages/cli/dist/gatehouse.js", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "gatehouse-cli-bench-"));
const server = await startListeningServer();
try {
  const owner = await createSignedInUser(server, "internal", { primaryEmail: "bench@cli.example" });
  writeFileSync(
    join(dir, "credentials.json"),
    JSON.stringify({
      logins: { [server.baseUrl]: { refreshToken: owner.refreshToken, userId: owner.user.id } },
    }),
    { mode: 0o600 },
  );
  const env = { ...process.env, GATEHOUSE_CONFIG_DIR: dir, GATEHOUSE_API_URL: server.baseUrl, NO_COLOR: "1" };
  const cli = (args) =>
    new Promise((resolve) => {
      const child = spawn(process.execPath, [bin, ...args], { env, stdio: ["ignore", "pipe", "inherit"] });
      let stdout = "";
      let peakKiB = 0;
      const sample = () => {
        try {
          const status = readFileSync(`/proc/${child.pid}/status`, "utf8");
          peakKiB = Math.max(peakKiB, Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0));
        } catch {
          // Gone already.
        }
      };
      const timer = setInterval(sample, 100);
      child.stdout.on("data", (chunk) => {
        stdout += chunk;
      });
      child.on("close", (code) => {
        clearInterval(timer);
        resolve({ code, stdout, peakKiB });
      });
    });

  const project = JSON.parse((await cli(["projects", "create", "Bench import", "--json"])).stdout);
  const known = { email: "known@bench.example", password: "the password of the old system" };
  // Distinct hashes cost ~1 ms each at cost 4; a few hundred shared ones keep the file realistic and quick to make.
  const hashes = await Promise.all(
    Array.from({ length: 256 }, (_, i) => bcryptHash(`password ${i}`, { cost: 4 })),
  );
  const file = join(dir, "users.jsonl");
  const out = createWriteStream(file);
  for (let i = 0; i < total; i++) {
    const user =
      i === Math.floor(total / 2)
        ? { primary_email: known.email, password_hash: await bcryptHash(known.password, { cost: 10 }) }
        : {
            primary_email: `user${i}@bench.example`,
            display_name: `User ${i}`,
            password_hash: hashes[i % 256],
          };
    if (!out.write(`${JSON.stringify(user)}\n`)) await new Promise((resolve) => out.once("drain", resolve));
  }
  await new Promise((resolve) => out.end(resolve));

  const started = performance.now();
  const run = await cli(["users", "import", file, "--project", project.id, "--json"]);
  const seconds = (performance.now() - started) / 1000;
  if (run.code !== 0) throw new Error(`import failed with exit code ${run.code}`);
  const { imported } = JSON.parse(run.stdout);
  const signIn = await server.request("/api/v1/auth/password/sign-in", {
    method: "POST",
    headers: { "x-stack-project-id": project.id, "x-stack-access-type": "client" },
    body: { email: known.email, password: known.password },
  });
  console.log(
    [
      `users import: ${imported.toLocaleString("en")} users from a ${(statSync(file).size / 1e6).toFixed(1)} MB file`,
      `  time        ${seconds.toFixed(1)} s (${Math.round(imported / seconds).toLocaleString("en")} users/s, check pass and import pass)`,
      `  peak RSS    ${(run.peakKiB / 1024).toFixed(0)} MiB (the gatehouse process)`,
      `  server RSS  ${(process.memoryUsage().rss / 1048576).toFixed(0)} MiB (this process: server and ${process.env.DATABASE_URL ? "pg client" : "PGlite"})`,
      `  sign-in of an imported user with the password behind their bcrypt hash: HTTP ${signIn.status}`,
    ].join("\n"),
  );
} finally {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
}
