// The peer bench/compare.mjs measures Gatehouse against: Better Auth as its docs set it up for a Node server,
// with email and password on, on PostgreSQL through pg's Pool, its tables made by its own migration API at start
// (as Gatehouse migrates at start), served by node:http through `toNodeHandler`.
//   PORT=… DATABASE_URL=… BETTER_AUTH_SECRET=… NODE_ENV=production node bench/compare/better-auth-server.mjs
import http from "node:http";
import { betterAuth } from "better-auth";
import { getMigrations } from "better-auth/db/migration";
import { toNodeHandler } from "better-auth/node";
import pg from "pg";

const port = Number(process.env.PORT);
const baseURL = `http://127.0.0.1:${port}`;
// Limits raised, not turned off: Better Auth keeps counting in memory (its default store), as Gatehouse keeps its
// raised counters in PostgreSQL, so both pay for their bookkeeping but neither refuses the benchmark's traffic.
const generous = { window: 60, max: 1_000_000 };

const auth = betterAuth({
  baseURL,
  secret: process.env.BETTER_AUTH_SECRET,
  database: new pg.Pool({ connectionString: process.env.DATABASE_URL }),
  emailAndPassword: { enabled: true },
  rateLimit: {
    enabled: true,
    ...generous,
    customRules: { "/sign-in/*": generous, "/sign-up/*": generous },
  },
  // Off by default already; said here because nothing of a benchmark should leave the machine.
  telemetry: { enabled: false },
});

const { runMigrations } = await getMigrations(auth.options);
await runMigrations();

const handler = toNodeHandler(auth);
const server = http.createServer((request, response) => {
  if (request.url === "/health") {
    response.writeHead(200, { "content-type": "application/json" }).end('{"status":"ok"}');
    return;
  }
  handler(request, response);
});
server.listen(port, "127.0.0.1");

function shutdown() {
  server.close();
  process.exit(0);
}
process.on("SIGINT", shutdown);
process.on("SIGTERM", shutdown);
