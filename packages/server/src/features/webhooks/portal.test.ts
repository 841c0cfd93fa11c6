/**
 * The webhook portal: the token of POST /webhooks/svix-token, what it opens (one project's endpoints, nothing
 * else), the endpoint and delivery routes, send-test-webhook, and the SSRF refusals when an endpoint is saved.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
import { recordEvents } from "../events/record.ts";
import { createPortalToken, PORTAL_TOKEN_LIFETIME_MS, verifyPortalToken } from "./portal-token.ts";
import {
  createEndpoint,
  independentlyVerified,
  makeRetriesDue,
  openWebhookTestFile,
} from "./test-support.ts";
import type { WebhookWorker } from "./worker.ts";

let server: TestServer;
let worker: WebhookWorker;
let a: TestProject;
let b: TestProject;
const { receiver } = openWebhookTestFile(
  (opened) => ({ server, worker, a, b } = opened),
  async (started: TestServer) => ({
    a: await started.createProject("Portal A"),
    b: await started.createProject("Portal B"),
  }),
);

async function portalToken(project: TestProject): Promise<string> {
  const response = await server.request("/api/v1/webhooks/svix-token", {
    method: "POST",
    headers: project.headers("admin"),
    body: {},
  });
  expect(response.status, response.text).toBe(201);
  return response.body.token;
}

const withToken = (token: string) => ({ authorization: `Bearer ${token}` });

function portal(token: string, method: string, path: string, body?: unknown) {
  return server.request(`/api/v1/webhooks-portal${path}`, {
    method,
    headers: withToken(token),
    ...(body === undefined ? {} : { body }),
  });
}

describe("POST /webhooks/svix-token", () => {
  it("answers 201 {token, url}: the portal page with the token in the fragment", async () => {
    const response = await server.request("/api/v1/webhooks/svix-token", {
      method: "POST",
      headers: a.headers("admin"),
      body: {},
    });
    expect(response.status).toBe(201);
    expect(Object.keys(response.body).sort()).toEqual(["token", "url"]);
    expect(response.body.url).toBe(`http://localhost:8102/webhooks-portal#token=${response.body.token}`);
    expect(verifyPortalToken(server.deps.env, response.body.token)).toBe(a.id);
  });

  it("makes tokens that expire after 24 hours and that another secret does not accept", () => {
    const issued = Date.now();
    const { token } = createPortalToken(server.deps.env, a.id, issued);
    expect(verifyPortalToken(server.deps.env, token, issued + PORTAL_TOKEN_LIFETIME_MS - 1)).toBe(a.id);
    expect(verifyPortalToken(server.deps.env, token, issued + PORTAL_TOKEN_LIFETIME_MS)).toBeNull();
    expect(
      verifyPortalToken({ secret: "another-secret-that-is-long-enough-to-pass" }, token, issued),
    ).toBeNull();
  });
});

describe("the portal token", () => {
  it("opens its own project's endpoints and never another project's", async () => {
    const tokenA = await portalToken(a);
    const tokenB = await portalToken(b);
    const created = await portal(tokenA, "POST", "/endpoints", {
      url: "http://localhost:9/a",
      description: "A's",
    });
    expect(created.status, created.text).toBe(201);
    const endpointOfA = created.body.id as string;
    const ofB = await createEndpoint(server, b, { url: "http://localhost:9/b" });

    const listA = await portal(tokenA, "GET", "/endpoints");
    expect(listA.body.items.map((e: { id: string }) => e.id)).toEqual([endpointOfA]);
    const listB = await portal(tokenB, "GET", "/endpoints");
    expect(listB.body.items.map((e: { id: string }) => e.id)).toEqual([ofB.id]);

    // A's token on B's endpoint: every route answers 404 and changes nothing.
    const attempts: [string, string, unknown?][] = [
      ["GET", `/endpoints/${ofB.id}`],
      ["PATCH", `/endpoints/${ofB.id}`, { url: "http://localhost:9/stolen", enabled: false }],
      ["POST", `/endpoints/${ofB.id}/rotate-secret`],
      ["GET", `/endpoints/${ofB.id}/deliveries`],
      ["POST", `/endpoints/${ofB.id}/test`],
      ["DELETE", `/endpoints/${ofB.id}`],
    ];
    for (const [method, path, body] of attempts) {
      const response = await portal(tokenA, method, path, body);
      expect(response.status, `${method} ${path}`).toBe(404);
    }
    const testOfB = await portal(tokenB, "POST", `/endpoints/${ofB.id}/test`);
    const resend = await portal(tokenA, "POST", `/deliveries/${testOfB.body.id}/resend`);
    expect(resend.status).toBe(404);
    const afterB = await portal(tokenB, "GET", `/endpoints/${ofB.id}`);
    expect(afterB.body).toMatchObject({ url: "http://localhost:9/b", enabled: true });
  });

  it("is refused when wrong, tampered with, expired, or naming a deleted project", async () => {
    const token = await portalToken(a);
    const [payload, signature] = token.slice("ghwp_".length).split(".") as [string, string];
    const forged = Buffer.from(JSON.stringify({ p: b.id, exp: Date.now() + 60_000 })).toString("base64url");
    const expired = createPortalToken(server.deps.env, a.id, Date.now() - PORTAL_TOKEN_LIFETIME_MS - 1).token;
    const doomed = await server.createProject("Deleted later");
    const ofDeleted = await portalToken(doomed);
    const deleted = await server.request("/api/v1/internal/projects/current", {
      method: "DELETE",
      headers: doomed.headers("admin"),
    });
    expect(deleted.status, deleted.text).toBe(200);
    for (const bad of [
      "nonsense",
      `ghwp_${forged}.${signature}`,
      `ghwp_${payload}.${signature.slice(0, -2)}AA`,
      expired,
      ofDeleted,
    ]) {
      const response = await portal(bad, "GET", "/endpoints");
      expect(response.status, bad).toBe(401);
    }
    expect((await portal(token, "GET", "/endpoints")).status).toBe(200);
  });

  it("opens no route outside the portal, not even a read", async () => {
    const token = await portalToken(a);
    for (const [method, path] of [
      ["GET", "/internal/projects/current"],
      ["POST", "/webhooks/svix-token"],
      ["GET", "/users"],
    ] as const) {
      const response = await server.request(`/api/v1${path}`, {
        method,
        headers: withToken(token),
        ...(method === "GET" ? {} : { body: {} }),
      });
      expect(response.headers.get("x-stack-known-error"), path).toBe("ACCESS_TYPE_REQUIRED");
    }
  });
});

describe("endpoints", () => {
  it("are created, read, changed and deleted; the secret is shown on creation and rotation only", async () => {
    const token = await portalToken(a);
    const created = await portal(token, "POST", "/endpoints", {
      url: "http://localhost:9/crud",
      event_types: ["user.created", "user.created", "team.created"],
    });
    expect(created.status).toBe(201);
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(created.body).toMatchObject({
      event_types: ["user.created", "team.created"],
      enabled: true,
      description: "",
    });
    const id = created.body.id as string;
    const read = await portal(token, "GET", `/endpoints/${id}`);
    expect(read.text).not.toContain("whsec_");
    const patched = await portal(token, "PATCH", `/endpoints/${id}`, { enabled: false, event_types: [] });
    expect(patched.body).toMatchObject({ enabled: false, event_types: [], url: "http://localhost:9/crud" });
    const rotated = await portal(token, "POST", `/endpoints/${id}/rotate-secret`);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(created.body.secret);
    const list = await portal(token, "GET", "/endpoints");
    expect(list.text).not.toContain("whsec_");
    expect((await portal(token, "DELETE", `/endpoints/${id}`)).status).toBe(200);
    expect((await portal(token, "GET", `/endpoints/${id}`)).status).toBe(404);
  });

  it("refuse URLs that are not http(s), and unknown event types", async () => {
    const token = await portalToken(a);
    for (const body of [
      { url: "ftp://localhost/x" },
      { url: "file:///etc/passwd" },
      { url: "http://localhost/x", event_types: ["user.nope"] },
    ]) {
      const response = await portal(token, "POST", "/endpoints", body);
      expect(response.status, JSON.stringify(body)).toBe(400);
    }
  });

  it("list the event types", async () => {
    const token = await portalToken(a);
    const response = await portal(token, "GET", "/event-types");
    expect(response.body.items.map((t: { name: string }) => t.name)).toContain("team_membership.created");
  });
});

describe("deliveries, test messages and resend", () => {
  it("a test message is listed with its attempt; resend sends it again with the same id; rotation re-signs", async () => {
    const token = await portalToken(a);
    const hook = await receiver((index) =>
      index === 0 ? { status: 500, body: "first fails" } : { status: 200 },
    );
    const created = await portal(token, "POST", "/endpoints", { url: hook.url });
    const id = created.body.id as string;
    const queued = await portal(token, "POST", `/endpoints/${id}/test`);
    expect(queued.status).toBe(201);
    expect(queued.body).toMatchObject({ status: "pending", event_type: "stack.test", attempts: 0 });
    await worker.drain();
    expect(JSON.parse(hook.messages[0]!.body)).toEqual({
      type: "stack.test",
      data: { message: expect.any(String), endpointUrl: hook.url },
    });
    const listed = await portal(token, "GET", `/endpoints/${id}/deliveries`);
    expect(listed.body.items).toHaveLength(1);
    expect(listed.body.items[0]).toMatchObject({
      status: "pending",
      attempts: 1,
      last_status_code: 500,
      event_id: hook.messages[0]!.id,
      attempt_log: [{ attempt: 1, status_code: 500, response: "first fails" }],
    });
    // Resend waits until the delivery is finished; a retry is still due.
    await makeRetriesDue(server.deps.db);
    await worker.drain();
    const rotated = await portal(token, "POST", `/endpoints/${id}/rotate-secret`);
    const resent = await portal(token, "POST", `/deliveries/${listed.body.items[0].id}/resend`);
    expect(resent.body).toMatchObject({ status: "pending", attempts: 2 });
    await worker.drain();
    expect(hook.messages.map((m) => m.id)).toEqual(Array(3).fill(hook.messages[0]!.id));
    expect(
      await independentlyVerified(created.body.secret, hook.messages[1]!.headers, hook.messages[1]!.body),
    ).toBe(true);
    expect(
      await independentlyVerified(rotated.body.secret, hook.messages[2]!.headers, hook.messages[2]!.body),
    ).toBe(true);
    expect(
      await independentlyVerified(created.body.secret, hook.messages[2]!.headers, hook.messages[2]!.body),
    ).toBe(false);
    const final = await portal(token, "GET", `/endpoints/${id}/deliveries`);
    expect(final.body.items[0]).toMatchObject({
      status: "succeeded",
      attempts: 3,
      next_attempt_at_millis: null,
    });
  });

  it("lists events fanned out to the endpoint, newest first, with their types", async () => {
    const project = await server.createProject("Listing");
    const token = await portalToken(project);
    const hook = await receiver();
    const endpoint = await createEndpoint(server, project, { url: hook.url });
    await recordEvents(server.deps.db, project.id, [{ type: "team.created", data: { id: "x" } }]);
    await worker.drain();
    await recordEvents(server.deps.db, project.id, [{ type: "team.deleted", data: { id: "x" } }]);
    await worker.drain();
    const listed = await portal(token, "GET", `/endpoints/${endpoint.id}/deliveries?limit=10`);
    expect(listed.body.items.map((d: { event_type: string }) => d.event_type)).toEqual([
      "team.deleted",
      "team.created",
    ]);
  });
});

describe("POST /internal/send-test-webhook", () => {
  const sendTest = (project: TestProject, endpointId: string) =>
    server.request("/api/v1/internal/send-test-webhook", {
      method: "POST",
      headers: project.headers("admin"),
      body: { endpoint_id: endpointId },
    });

  it("sends stack.test now, signed, and reports success or the endpoint's answer", async () => {
    const ok = await receiver();
    const okEndpoint = await createEndpoint(server, a, { url: ok.url });
    expect((await sendTest(a, okEndpoint.id)).body).toEqual({ success: true });
    expect(ok.messages).toHaveLength(1);
    expect(JSON.parse(ok.messages[0]!.body)).toMatchObject({
      type: "stack.test",
      data: { endpointUrl: ok.url },
    });
    expect(
      await independentlyVerified(okEndpoint.secret, ok.messages[0]!.headers, ok.messages[0]!.body),
    ).toBe(true);

    const failing = await receiver(() => ({ status: 418, body: "teapot" }));
    const failingEndpoint = await createEndpoint(server, a, { url: failing.url });
    expect((await sendTest(a, failingEndpoint.id)).body).toEqual({
      success: false,
      error_message: "The endpoint answered 418: teapot",
    });
    expect((await sendTest(b, okEndpoint.id)).status).toBe(404);
  });

  it("is limited per project (testWebhookPerProject): 429 with Retry-After, the number the project's own", async () => {
    const limited = await server.createProject("Test Webhook Limit");
    await limited.configure({ "gatehouse.rateLimits.testWebhookPerProject": { limit: 2 } });
    const target = await receiver();
    const endpoint = await createEndpoint(server, limited, { url: target.url });
    expect((await sendTest(limited, endpoint.id)).body).toEqual({ success: true });
    expect((await sendTest(limited, endpoint.id)).body).toEqual({ success: true });
    const refused = await sendTest(limited, endpoint.id);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(Number(refused.headers.get("retry-after"))).toBeLessThanOrEqual(600);
    expect(target.messages).toHaveLength(2);

    await limited.configure({ "gatehouse.rateLimits.testWebhookPerProject": { limit: 4 } });
    expect((await sendTest(limited, endpoint.id)).body).toEqual({ success: true });
    expect(target.messages).toHaveLength(3);
  });
});

describe("in production (SSRF guard)", () => {
  let production: TestServer;
  let project: TestProject;
  beforeAll(async () => {
    production = await createTestServer({ isDevelopment: false });
    project = await production.createProject("Production");
  });
  afterAll(() => production.close());

  const create = (url: string) =>
    production.request("/api/v1/webhooks-portal/endpoints", {
      method: "POST",
      headers: project.headers("admin"),
      body: { url },
    });

  it.each([
    ["http://127.0.0.1/x", "loopback"],
    ["http://localhost:8080/x", "loopback"],
    ["http://10.0.0.8/x", "private"],
    ["http://172.20.1.1/x", "private"],
    ["http://192.168.1.10/x", "private"],
    ["http://169.254.169.254/latest/meta-data", "link-local"],
    ["http://100.64.0.1/x", "carrier-grade NAT"],
    ["http://0.0.0.0/x", "unspecified"],
    ["http://[::1]/x", "loopback"],
    ["http://[::]/x", "unspecified"],
    ["http://[fd12:3456::1]/x", "unique-local"],
    ["http://[fe80::1]/x", "link-local"],
    ["http://[::ffff:127.0.0.1]/x", "loopback"],
    ["http://[::ffff:a9fe:a9fe]/x", "link-local"],
  ])("refuses %s (%s) with a clear 400", async (url, reason) => {
    const response = await create(url);
    expect(response.status).toBe(400);
    expect(response.text).toContain(`a ${reason} address`);
  });

  it("accepts a public address, and refuses a change to a private one", async () => {
    const created = await create("https://93.184.215.14/hooks");
    expect(created.status, created.text).toBe(201);
    const patched = await production.request(`/api/v1/webhooks-portal/endpoints/${created.body.id}`, {
      method: "PATCH",
      headers: project.headers("admin"),
      body: { url: "http://[::ffff:10.0.0.1]/x" },
    });
    expect(patched.status).toBe(400);
    expect(patched.text).toContain("private address");
  });
});
