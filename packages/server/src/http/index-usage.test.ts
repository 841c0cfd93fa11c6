/**
 * An index for every lookup path, proven. Every route of the registry is called with a tenant's own ids, by every
 * access type it allows, and the background workers run a pass; every statement sent meanwhile is then EXPLAINed
 * with sequential scans switched off (`set local enable_seqscan = off`). Switched off, the planner still picks a
 * sequential scan where no index can serve the query at all, so a `Seq Scan on <table>` in such a plan is a
 * per-project or per-user read that would go through the whole table (of every project) in production. The routes
 * come from the registry, so a new route, and a new table behind it, is covered without a new case here.
 *
 * The plans are made with each statement's own parameters (a custom plan, as PostgreSQL makes for the first
 * executions of a prepared statement); EXPLAIN without ANALYZE runs nothing, so writes are planned, not done.
 */
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startEmailWorker } from "../features/emails/worker.ts";
import { TEST_CATALOGUE } from "../features/payments/test-support.ts";
import { apiRoutes } from "../features/routes.ts";
import { startWebhookWorker } from "../features/webhooks/worker.ts";
import { createTestServer, type TestServer } from "../testing/harness.ts";
import { routeName } from "../testing/route-inputs.ts";
import { type SentStatement, statementsWithParamsSentBy } from "../testing/statements.ts";
import { attemptsFor, callAs, createTenant, type Tenant } from "../testing/tenant-fixture.ts";
import type { AccessType } from "./access-type.ts";
import type { AnyRoute } from "./route.ts";

/**
 * Tables a statement may read whole, each with the reason. A table here is small by construction and shared by
 * every project, never per project or per user.
 */
const WHOLE_TABLE_READS: Record<string, string> = {};

/**
 * Routes called last, in this order: they take away what the calls after them need (the key set every call uses,
 * the project itself).
 */
const LAST = [
  "PATCH /internal/api-keys/:api_key_id",
  "DELETE /internal/api-keys/:api_key_id",
  "DELETE /internal/projects/current",
];
const METHOD_ORDER = ["GET", "POST", "PUT", "PATCH", "DELETE"];

/** Reads first, then writes, then deletions, so that each route finds the tenant's objects still there. */
function walkOrder(routes: readonly AnyRoute[]): AnyRoute[] {
  const rank = (route: AnyRoute) => {
    const last = LAST.indexOf(routeName(route));
    return last >= 0 ? METHOD_ORDER.length + last : METHOD_ORDER.indexOf(route.method);
  };
  return [...routes].sort((x, y) => rank(x) - rank(y));
}

let server: TestServer;
let tenant: Tenant;
/** Any 5xx the walk met: its own inputs are valid, so each is a bug of the route. */
const serverErrors: string[] = [];

beforeAll(async () => {
  server = await createTestServer();
  tenant = await createTenant(server, "indexed");
  // Payments routes need a catalogue; a grant gives the ledger and the purchases rows to look up.
  await tenant.project.configure({ ...TEST_CATALOGUE, "auth.otp.allowSignIn": true });
  const granted = await callAs(
    server,
    tenant.project,
    "server",
    "POST",
    `/payments/products/user/${tenant.ids.user}`,
    { product_id: "credit-pack" },
  );
  expect(granted.status, granted.text).toBeLessThan(300);
});
afterAll(() => server?.close());

/**
 * The hot paths as clients take them, with valid bodies: the registry walk's sampled bodies are mostly refused by
 * the schemas of these routes, before any statement.
 */
async function signInFlows(): Promise<void> {
  const { project } = tenant;
  const as = (accessType: AccessType, method: string, path: string, body?: unknown, headers = {}) =>
    server.request(`/api/v1${path}`, { method, headers: project.headers(accessType, headers), body });
  const credentials = { email: "flows@indexed.example", password: "a long enough password 1" };
  const signedUp = await as("client", "POST", "/auth/password/sign-up", {
    ...credentials,
    verification_callback_url: "http://localhost:3000/handler/email-verification",
  });
  expect(signedUp.status, signedUp.text).toBe(200);
  const signedIn = await as("client", "POST", "/auth/password/sign-in", credentials);
  expect(signedIn.status, signedIn.text).toBe(200);
  const tokens = { "x-stack-refresh-token": signedIn.body.refresh_token };
  expect((await as("client", "POST", "/auth/sessions/current/refresh", {}, tokens)).status).toBe(200);
  const me = { "x-stack-access-token": signedIn.body.access_token };
  expect((await as("client", "GET", "/users/me", undefined, me)).status).toBe(200);
  const wrong = await as("client", "POST", "/auth/password/sign-in", {
    ...credentials,
    password: "wrong password",
  });
  expect(wrong.status).toBe(400);
  // A new address: the sign-up's own is not verified, so a code sign-in to it is refused before any code is made.
  const codeSent = await as("client", "POST", "/auth/otp/send-sign-in-code", {
    email: "code@indexed.example",
    callback_url: "http://localhost:3000/handler/magic-link-callback",
  });
  expect(codeSent.status, codeSent.text).toBe(200);
  expect((await as("server", "GET", "/users?query=flows&limit=5")).status).toBe(200);
  const customer = `customer_type=user&customer_id=${tenant.ids.user}`;
  expect((await as("admin", "GET", `/internal/payments/transactions?${customer}`)).status).toBe(200);
}

/** Every statement the routes and the workers send, once each (by text: a text is planned the same way). */
async function statementsOfTheWalk(): Promise<SentStatement[]> {
  const { sent } = await statementsWithParamsSentBy(async () => {
    await signInFlows();
    for (const route of walkOrder(apiRoutes)) {
      const callers: readonly AccessType[] = route.access === "public" ? ["client"] : route.access;
      for (const accessType of callers) {
        for (const attempt of attemptsFor(route, tenant)) {
          const answer = await callAs(
            server,
            tenant.project,
            accessType,
            route.method,
            attempt.path,
            attempt.body,
            tenant.accessToken,
          );
          if (answer.status >= 500) serverErrors.push(`${answer.status} ${route.method} ${attempt.path}`);
        }
      }
    }
    // The workers' passes (started here, so their timers and passes are in this recording).
    for (const start of [startEmailWorker, startWebhookWorker]) {
      const worker = start(server.deps, { intervalMs: 3_600_000 });
      await worker.drain();
      await worker.stop();
    }
  });
  const byText = new Map<string, SentStatement>();
  for (const statement of sent) if (!byText.has(statement.text)) byText.set(statement.text, statement);
  return [...byText.values()];
}

const EXPLAINABLE = /^\s*(\(?\s*select|insert|update|delete|with)\b/i;

/** The statement's text with its `$n` placeholders bound to its own values again. */
function withParams({ text, params }: SentStatement) {
  const chunks = text.split(/\$(\d+)/);
  return sql.join(
    chunks.map((chunk, index) => (index % 2 === 0 ? sql.raw(chunk) : sql.param(params[Number(chunk) - 1]))),
  );
}

async function planWithoutSequentialScans(statement: SentStatement): Promise<string> {
  let plan = "";
  // A failed EXPLAIN would abort the transaction; the plan is read, then the transaction is rolled back anyway.
  await server.deps.db
    .transaction(async (tx) => {
      await tx.execute(sql`set local enable_seqscan = off`);
      const rows = await tx.execute(sql.join([sql.raw("explain "), withParams(statement)]));
      const list = (Array.isArray(rows) ? rows : (rows as { rows: unknown[] }).rows) as Record<
        string,
        string
      >[];
      plan = list.map((row) => row["QUERY PLAN"]).join("\n");
      throw new RolledBack();
    })
    .catch((error) => {
      if (!(error instanceof RolledBack)) throw error;
    });
  return plan;
}

class RolledBack extends Error {}

// The walk calls every route of the registry for every caller it allows: minutes on a loaded machine.
it("sends no statement that only a sequential scan can serve", { timeout: 600_000 }, async () => {
  const statements = await statementsOfTheWalk();
  expect(serverErrors).toEqual([]);
  const explained = statements.filter((statement) => EXPLAINABLE.test(statement.text));
  // The walk must reach the tables it is meant to prove: a regression in the walk would pass vacuously.
  const tablesSeen = new Set(
    explained.flatMap(({ text }) => [...text.matchAll(/"(\w+)"/g)].map((m) => m[1])),
  );
  for (const table of [
    "users",
    "teams",
    "product_purchases",
    "item_quantity_changes",
    "webhook_deliveries",
  ]) {
    expect(tablesSeen, `no statement of the walk touched ${table}`).toContain(table);
  }
  const problems: string[] = [];
  for (const statement of explained) {
    const plan = await planWithoutSequentialScans(statement);
    const whole = [...plan.matchAll(/Seq Scan on (\w+)/g)]
      .map((match) => match[1]!)
      .filter((table) => !(table in WHOLE_TABLE_READS));
    if (whole.length > 0) problems.push(`${[...new Set(whole)].join(", ")}:\n  ${statement.text}\n${plan}`);
  }
  console.log(
    `index usage: ${explained.length} distinct statements explained, ${problems.length} read a whole table`,
  );
  expect(problems, problems.join("\n\n")).toEqual([]);
});
