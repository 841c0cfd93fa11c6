/**
 * Tenant isolation on every query: project B's credentials, handed project A's ids, must neither read, change nor
 * delete anything of A. Every route of the registry that takes an id (in its path, query or body) is called with
 * A's ids in place, by every access type it allows; afterwards A's objects are re-read with A's keys and compared.
 * The id substitution comes from parameter names, so a new route is covered without a new test.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiRoutes } from "../features/routes.ts";
import { createTestServer, type TestProject, type TestServer } from "../testing/harness.ts";
import { routeName } from "../testing/route-inputs.ts";
import {
  attemptsFor,
  callAs,
  createTenant,
  idKey,
  NOT_TENANT_IDS,
  namesOf,
  PLAIN_VALUES,
  type Tenant,
} from "../testing/tenant-fixture.ts";
import type { AccessType } from "./access-type.ts";

/** Routes that take a tenant id but are not checked here, with the reason. */
const EXEMPT: Record<string, string> = {
  "GET /projects/:project_id/.well-known/jwks.json": "public: public keys, named by the public project id",
};

/**
 * Lists that take ids as filters: handed A's ids they may answer 200 with an empty list (as the protocol has them do
 * for any id that matches nothing), never with anything of A. Every other route must refuse with a 4xx.
 */
const FILTERING_LISTS: Record<string, string> = {
  "GET /users": "team_id filters the project's users",
  "GET /users/export": "team_id filters the project's users, as in GET /users",
  "GET /contact-channels": "contact_channel_id filters the user's channels",
  "GET /team-member-profiles": "user_id filters the team's member profiles",
  "GET /team-permissions": "team_id, user_id and permission_id filter the grants",
  "GET /project-permissions": "user_id and permission_id filter the grants",
  "GET /internal/payments/transactions": "customer_id filters the project's purchases and item changes",
};

/**
 * Routes whose id is a label the caller picks within its own project (AI chat threads, PROTOCOL-EXTRA §5.1: "any
 * string, scoped per project"). Handed A's label, B reads or appends to B's own thread of that name, so a 2xx is
 * right; it must show nothing of A, and A's thread stays as it was (`snapshotOfA` reads it).
 */
const PER_PROJECT_LABELS: Record<string, string> = {
  "GET /internal/ai-chat/:threadId": "reads the caller's own thread of that name",
  "PATCH /internal/ai-chat/:threadId": "appends to the caller's own thread of that name",
  "POST /internal/ai-chat/:threadId":
    "asks the model in the caller's project; the thread id names no stored row",
};

let server: TestServer;
let a: Tenant;
let b: Tenant;

async function call(
  project: TestProject,
  accessType: AccessType,
  method: string,
  path: string,
  body?: unknown,
  accessToken?: string,
) {
  return callAs(server, project, accessType, method, path, body, accessToken);
}

/** A's objects as A's own keys see them. */
async function snapshotOfA() {
  const { ids, project } = a;
  const reads: [AccessType, string][] = [
    ["server", `/users/${ids.user}`],
    ["server", `/teams/${ids.team}`],
    ["server", `/team-member-profiles?team_id=${ids.team}`],
    ["server", `/team-invitations?team_id=${ids.team}`],
    ["server", `/contact-channels?user_id=${ids.user}`],
    ["server", `/user-api-keys?user_id=${ids.user}`],
    ["server", `/team-api-keys?team_id=${ids.team}`],
    ["admin", "/project-permission-definitions"],
    ["admin", "/team-permission-definitions"],
    ["server", `/project-permissions?user_id=${ids.user}`],
    ["server", `/team-permissions?team_id=${ids.team}&user_id=${ids.user}`],
    ["server", `/auth/sessions?user_id=${ids.user}`],
    ["server", `/emails/notification-preference/${ids.user}`],
    ["admin", "/internal/api-keys"],
    ["admin", "/internal/projects/current"],
    ["admin", `/internal/email-themes/${ids.emailTheme}`],
    ["admin", "/internal/email-templates"],
    ["admin", "/internal/email-drafts"],
    ["admin", "/webhooks-portal/endpoints"],
    ["admin", `/webhooks-portal/endpoints/${ids.webhookEndpoint}/deliveries`],
    ["admin", `/internal/ai-chat/${ids.aiThread}`],
    ["admin", `/internal/ai-conversations/${ids.aiConversation}`],
    ["admin", "/internal/ai-conversations"],
    ["admin", `/internal/ai-proposals/${ids.aiProposal}`],
    ["admin", "/internal/config"],
  ];
  const snapshot: Record<string, unknown> = {};
  for (const [accessType, path] of reads) {
    const response = await call(project, accessType, "GET", path);
    expect(response.status, `${path}: ${response.text}`).toBe(200);
    snapshot[path] = response.body;
  }
  return snapshot;
}

let before: Record<string, unknown>;

beforeAll(async () => {
  server = await createTestServer();
  a = await createTenant(server, "a");
  b = await createTenant(server, "b");
  before = await snapshotOfA();
});
afterAll(() => server.close());

const routesWithIds = apiRoutes.filter(
  (route) => !(routeName(route) in EXEMPT) && namesOf(route).ids.length > 0,
);

it("exempts only routes that exist", () => {
  const names = new Set(apiRoutes.map(routeName));
  expect(Object.keys(EXEMPT).filter((name) => !names.has(name))).toEqual([]);
});

it("knows every id-like parameter name, so no new route slips through unchecked", () => {
  const unknown = new Set<string>();
  for (const route of apiRoutes) {
    const names = namesOf(route);
    for (const name of names.params) {
      if (idKey(route, name, true) === undefined && !(name in PLAIN_VALUES))
        unknown.add(`${routeName(route)}: ${name}`);
    }
    for (const name of [...names.query, ...names.body]) {
      if (/(^|_)id$/.test(name) && idKey(route, name, false) === undefined && !(name in NOT_TENANT_IDS)) {
        unknown.add(`${routeName(route)}: ${name}`);
      }
    }
  }
  // Add a new name to ID_KINDS (and an object of that kind to createTenant), or to PLAIN_VALUES / NOT_TENANT_IDS.
  expect([...unknown]).toEqual([]);
});

describe.each(routesWithIds.map((route) => [routeName(route), route] as const))("%s", (name, route) => {
  if (route.access === "public") {
    it("is a public route that takes a tenant id: check it here, or exempt it with the reason", () => {
      expect.fail(`${name} reads no credentials, so B's keys mean nothing to it`);
    });
    return;
  }
  const callers = route.access as readonly AccessType[];
  it.each(callers)("gives B's %s nothing of A", async (accessType) => {
    const problems: string[] = [];
    for (const attempt of attemptsFor(route, a, b)) {
      const response = await call(
        b.project,
        accessType,
        route.method,
        attempt.path,
        attempt.body,
        b.accessToken,
      );
      const refused = response.status >= 400 && response.status < 500;
      const leaked = refused ? [] : a.markers.filter((marker) => response.text.includes(marker));
      const emptyList =
        name in FILTERING_LISTS &&
        response.status === 200 &&
        (response.body?.items ?? response.body?.transactions)?.length === 0;
      const ownLabel = name in PER_PROJECT_LABELS && response.status < 300;
      if (leaked.length > 0 || !(refused || emptyList || ownLabel)) {
        const shown = `${response.status} ${response.text.slice(0, 300)}`;
        problems.push(`${attempt.label}: ${route.method} ${attempt.path} -> ${shown}`);
      }
    }
    expect(problems, `${name} (${accessType}) crosses tenants:\n${problems.join("\n")}`).toEqual([]);
  });
});

it("leaves every object of A unchanged", async () => {
  expect(await snapshotOfA()).toEqual(before);
});
