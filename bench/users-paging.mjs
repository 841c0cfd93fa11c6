#!/usr/bin/env node
// Does the users list stay fast deep into a big project? Boots a real Gatehouse in-process (as the tests do), seeds
// a project with many users, then times `GET /api/v1/users` over HTTP with the server key: the first page, pages
// deep into a newest-first cursor walk, searches and a single read. Prints median and p95 per operation, and the
// plan PostgreSQL chose for the deepest page (keyset paging through users_project_signed_up_idx, no OFFSET).
// It imports the server's TypeScript sources, so it runs under tsx:
//   npx tsx --conditions=gatehouse-source --tsconfig packages/server/tsconfig.json bench/users-paging.mjs [--users 20000]
// Embedded in-memory PGlite by default; with DATABASE_URL set (postgres://postgres@127.0.0.1:5432/test), a fresh
// database on that server, dropped again at the end, exactly like a test file's.
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { sql } from "drizzle-orm";
import { startListeningServer } from "../packages/server/src/testing/listening-server.ts";
import { explainStatement, listStatementOf, userStatementsOf } from "./list-statement.mjs";
import { COMMON_SEARCH, seedUsers } from "./users-paging-seed.mjs";

/** What the dashboard's users table asks for. */
const PAGE_SIZE = 25;
/**
 * Filters of the dashboard's users page, each timed with its total: every filter `GET /users` takes, on its own.
 * The seeded users all have a password and none is anonymous, restricted, with MFA, a passkey or an OAuth account,
 * so those filters match nothing: the case where reading users in page order until enough match reads them all.
 * `{team}` is a seeded user's personal team (one member).
 */
const DASHBOARD_FILTERS = [
  ["no filter", ""],
  ["newest active first", "&order_by=last_active_at"],
  ["email verified", "&primary_email_verified=true"],
  ["email not verified", "&primary_email_verified=false"],
  ["password users", "&auth_method=password"],
  ["OTP users", "&auth_method=otp"],
  ["passkey users", "&auth_method=passkey"],
  ["OAuth users", "&auth_method=oauth"],
  ["with MFA", "&has_mfa=true"],
  ["restricted", "&restricted_by_admin=true"],
  ["anonymous only", "&include_anonymous=true&only_anonymous=true"],
  ["anonymous included", "&include_anonymous=true"],
  ["one team", "&team_id={team}"],
  ["search + team", `&team_id={team}&query=${COMMON_SEARCH}`],
];
/** 1-based pages timed on their own; a page is skipped when the project has fewer. */
const DEPTHS = [10, 100, 800];

function positiveInteger(name, text) {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) {
    console.error(`--${name} must be a positive integer, got "${text}"`);
    process.exit(2);
  }
  return value;
}

const { values: options } = parseArgs({
  options: { users: { type: "string", default: "20000" }, repeat: { type: "string", default: "20" } },
});
const userCount = positiveInteger("users", options.users);
const repeat = positiveInteger("repeat", options.repeat);

function median(sorted) {
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}
/** Nearest-rank percentile: a value that was really measured. */
function percentile(sorted, fraction) {
  return sorted[Math.max(0, Math.ceil(fraction * sorted.length) - 1)];
}

const server = await startListeningServer();
// Closing twice would end the pool twice and skip the drop, so Ctrl-C and the normal end share one close.
let closing;
const close = () => {
  closing ??= server.close();
  return closing;
};
// An interrupted run still drops its PostgreSQL database.
process.once("SIGINT", () => {
  close().finally(() => process.exit(130));
});

try {
  await run(server);
} finally {
  await close();
}

async function run({ baseUrl, gatehouse, createProject }) {
  const { db } = gatehouse.deps;
  const [{ name: databaseName }] = (await db.execute(sql`select current_database() as name`)).rows;
  const databaseLabel =
    gatehouse.database.kind === "postgres"
      ? `PostgreSQL (fresh database ${databaseName}, dropped at the end)`
      : "PGlite (embedded, in memory)";

  // The test kit's project: a full key set, and the protocol headers of each access type.
  const project = await createProject("Users paging bench");
  const headers = project.headers("server");

  const seedStart = performance.now();
  const samples = await seedUsers(db, project.id, userCount, (done) => {
    if (process.stderr.isTTY) process.stderr.write(`\rseeding users: ${done}/${userCount}`);
  });
  if (process.stderr.isTTY) process.stderr.write("\n");
  const seedSeconds = (performance.now() - seedStart) / 1000;

  /** One API call, timed from sending the request to having parsed the whole JSON body. */
  async function call(path) {
    const started = performance.now();
    const response = await fetch(`${baseUrl}/api/v1${path}`, { headers });
    const text = await response.text();
    const ms = performance.now() - started;
    if (!response.ok) throw new Error(`GET ${path} answered ${response.status}: ${text.slice(0, 300)}`);
    return { body: JSON.parse(text), ms };
  }
  const listPath = (cursor, extra = "") =>
    `/users?limit=${PAGE_SIZE}&order_by=signed_up_at&desc=true${cursor ? `&cursor=${cursor}` : ""}${extra}`;

  // Warm up the connection pool, the HTTP keep-alive socket and the JIT before anything is timed.
  for (let i = 0; i < 10; i++) await call(listPath());

  // The whole walk, newest first, as the dashboard's "next page" does. It also checks that the figures measure a
  // correct walk: every user exactly once, in (signed_up_at, id) descending order.
  const pageCursors = [undefined];
  const walkMs = [];
  const seen = new Set();
  let previous = null;
  for (;;) {
    const { body, ms } = await call(listPath(pageCursors.at(-1)));
    walkMs.push(ms);
    for (const user of body.items) {
      const key = [user.signed_up_at_millis, user.id];
      if (
        seen.has(user.id) ||
        (previous && (key[0] > previous[0] || (key[0] === previous[0] && key[1] > previous[1])))
      )
        throw new Error(`the walk broke order or repeated a user at page ${pageCursors.length}`);
      seen.add(user.id);
      previous = key;
    }
    if (!body.pagination.next_cursor) break;
    pageCursors.push(body.pagination.next_cursor);
  }
  if (seen.size !== userCount) throw new Error(`the walk saw ${seen.size} users, ${userCount} were seeded`);

  const depths = DEPTHS.filter((page) => page <= pageCursors.length);
  // ".<index>@example" is in exactly one email: the leading dot keeps ".500@" from matching "1500@".
  const rareSearch = `.${samples[0].email.split("@")[0].split(".").at(-1)}@example`;
  // The dashboard's query: newest first unless the filter orders otherwise.
  const dashboardPath = (filter) => {
    const wanted = `&include_total=true&include_restricted=true${filter.replace("{team}", samples[0].teamId)}`;
    return /order_by=/.test(wanted)
      ? `/users?limit=${PAGE_SIZE}&desc=true${wanted}`
      : listPath(undefined, wanted);
  };
  const searchPath = (text) => listPath(undefined, `&query=${encodeURIComponent(text)}`);
  const operations = [
    { operation: "first page", paths: [listPath()] },
    ...depths.map((page) => ({
      operation: `page ${page} (cursor walk)`,
      paths: [listPath(pageCursors[page - 1])],
    })),
    { operation: `search "${COMMON_SEARCH}" (~1 user in 20)`, paths: [searchPath(COMMON_SEARCH)] },
    { operation: `search "${rareSearch}" (1 user)`, paths: [searchPath(rareSearch)] },
    { operation: "read one user (GET /users/:id)", paths: samples.map((user) => `/users/${user.id}`) },
    // The dashboard's users page: a page and the filter's total (exact up to 10,000, then an estimate).
    ...DASHBOARD_FILTERS.map(([name, filter]) => ({
      operation: `dashboard page + total, ${name}`,
      paths: [dashboardPath(filter)],
      dashboard: true,
    })),
  ];
  // Round-robin: each repetition runs every operation once, so that a busy moment on a shared machine lands on all
  // operations alike rather than on whichever one was being measured just then.
  for (const entry of operations) entry.times = [];
  for (let i = 0; i < repeat; i++)
    for (const entry of operations) entry.times.push((await call(entry.paths[i % entry.paths.length])).ms);
  const rows = [
    ...operations.slice(0, depths.length + 1),
    { operation: `every page of the walk (${pageCursors.length} pages, once each)`, times: walkMs },
    ...operations.slice(depths.length + 1),
  ];

  console.log(`GET /api/v1/users, ${PAGE_SIZE} per page, newest first (order_by=signed_up_at&desc=true)`);
  console.log(`database: ${databaseLabel}`);
  console.log(
    `users: ${userCount.toLocaleString("en")} (seeded in ${seedSeconds.toFixed(1)} s), ` +
      `each timed operation repeated ${repeat}×, node ${process.version}\n`,
  );
  const width = Math.max(...rows.map((row) => row.operation.length)) + 2;
  console.log(`${"operation".padEnd(width)}${"median ms".padStart(11)}${"p95 ms".padStart(10)}`);
  for (const { operation, times } of rows) {
    const sorted = [...times].sort((a, b) => a - b);
    console.log(
      `${operation.padEnd(width)}${median(sorted).toFixed(2).padStart(11)}${percentile(sorted, 0.95).toFixed(2).padStart(10)}`,
    );
  }

  // Issue 38's target for the users page: under 50 ms at 200,000 users, whatever the filter; each filter next to it.
  const TARGET_MS = 50;
  console.log(
    `\ntarget: the dashboard's page with its total <= ${TARGET_MS} ms at 200,000 users for any filter (measured at ${userCount.toLocaleString("en")} users)`,
  );
  for (const entry of operations.filter((operation) => operation.dashboard)) {
    const ms = median([...entry.times].sort((a, b) => a - b));
    console.log(
      `  ${entry.operation.padEnd(width)}${ms.toFixed(2).padStart(9)} ms  ${ms <= TARGET_MS ? "met" : "not met"}`,
    );
  }

  // Which index each dashboard filter's statements (the page, and the total's count) read, and the database's time.
  console.log(
    "\nEXPLAIN ANALYZE of the dashboard's statements, per filter: the scans and the execution time",
  );
  for (const [name, filter] of DASHBOARD_FILTERS) {
    const statements = await userStatementsOf(db, () => call(dashboardPath(filter)));
    for (const statement of statements) {
      const plan = await explainStatement(db, statement);
      const scans = plan
        .filter(
          (line) =>
            / Scan /.test(line) && / on (users|contact_channels|team_members|oauth_accounts)\b/.test(line),
        )
        .map((line) =>
          line
            .replace(/^[\s->]+/, "")
            .replace(/ \(actual .*$/, "")
            .replace(/ on (\w+) \w+$/, " on $1"),
        );
      const execution = plan
        .find((line) => line.startsWith("Execution Time"))
        ?.replace("Execution Time: ", "");
      const kind = /^select count/i.test(statement.text) ? "total" : "page";
      console.log(
        `  ${name.padEnd(22)} ${kind.padEnd(6)}${(execution ?? "?").padStart(11)}  ${[...new Set(scans)].join("; ")}`,
      );
    }
  }

  // The database's own time for page 1 next to the deepest page: what keyset paging promises is that they match.
  const deepest = depths.at(-1);
  if (!deepest) return;
  const firstPlan = await listPlan(db, () => call(listPath()));
  const deepPlan = await listPlan(db, () => call(listPath(pageCursors[deepest - 1])));
  console.log("\nEXPLAIN ANALYZE of the list statement the server sent");
  for (const [page, plan] of [
    [1, firstPlan],
    [deepest, deepPlan],
  ]) {
    const scan = plan.lines
      .find((line) => /Scan.* on users(?! c(?:_\d+)?\b)/.test(line))
      ?.replace(/^[\s->]+/, "")
      .replace(/ \(actual .*$/, "");
    const execution = plan.lines.find((line) => line.startsWith("Execution Time"));
    console.log(`  page ${page}: ${scan ?? "(no scan line)"}; ${execution ?? ""}; OFFSET: ${plan.offset}`);
  }
  console.log(`\nfull plan for page ${deepest}:`);
  for (const line of deepPlan.lines)
    console.log(`${/users_project_signed_up_idx/.test(line) ? "→ " : "  "}${line}`);
}

/** The plan of the list statement one request sent, and whether that statement skips rows with OFFSET. */
async function listPlan(db, request) {
  const statement = await listStatementOf(db, request);
  const offset = statement ? (/\boffset\b/i.test(statement.text) ? "yes" : "no") : "?";
  return { offset, lines: await explainStatement(db, statement) };
}
