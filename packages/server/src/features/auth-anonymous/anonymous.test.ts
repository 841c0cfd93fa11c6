import { decodeJwt } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
import { expectKnownError, uniqueEmail } from "../../testing/known-errors.ts";
import { passwordApi, storedUser } from "../../testing/sign-up.ts";

let server: TestServer;
let project: TestProject;
let api: ReturnType<typeof passwordApi>;

beforeAll(async () => {
  server = await createTestServer({ trustProxy: { hops: 1 } });
  project = await server.createProject("Anonymous");
  api = passwordApi(server, project);
});
afterAll(() => server.close());

const from = (ip: string) => ({ "x-forwarded-for": ip });
const anonymousSignUp = (body?: unknown, headers: Record<string, string> = {}) =>
  api.post("/auth/anonymous/sign-up", body, headers);

describe("POST /auth/anonymous/sign-up", () => {
  it("creates an anonymous user whose token has the anonymous audience and issuer", async () => {
    const response = await anonymousSignUp(undefined, from("198.51.100.1"));
    expect(response.status, response.text).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(["access_token", "refresh_token", "user_id"]);
    const claims = decodeJwt(response.body.access_token);
    expect(claims).toMatchObject({
      sub: response.body.user_id,
      aud: `${project.id}:anon`,
      iss: `http://localhost:8102/api/v1/projects-anonymous-users/${project.id}`,
      is_anonymous: true,
      is_restricted: true,
      restricted_reason: { type: "anonymous" },
      email: null,
    });
    expect(await storedUser(server, project.id, response.body.user_id)).toMatchObject({
      isAnonymous: true,
      passwordHash: null,
    });

    // The token works where anonymous users are allowed, and only there.
    const allowed = await server.request("/api/v1/projects/current", {
      headers: project.headers("client", api.asUser(response.body.access_token)),
    });
    expect(allowed.status).toBe(200);
    expect((await api.refresh(response.body.refresh_token)).status).toBe(200);
    const refused = await server.request("/api/v1/projects/current", {
      headers: project.headers("client", { "x-stack-access-token": response.body.access_token }),
    });
    expect(refused.headers.get("x-stack-known-error")).toBe("ANONYMOUS_AUTHENTICATION_NOT_ALLOWED");
  });

  it("accepts an empty JSON body and refuses any other", async () => {
    expect((await anonymousSignUp({}, from("198.51.100.2"))).status).toBe(200);
    expectKnownError(
      await anonymousSignUp({ email: "a@example.com" }, from("198.51.100.2")),
      400,
      "SCHEMA_ERROR",
      expect.anything() as never,
    );
  });

  it("works while sign-ups are off", async () => {
    const closed = await server.createProject("Anonymous closed");
    const closedApi = passwordApi(server, closed);
    await closed.configure({ "auth.allowSignUp": false });
    const response = await closedApi.post("/auth/anonymous/sign-up", undefined, from("198.51.100.3"));
    expect(response.status, response.text).toBe(200);
    expect(decodeJwt(response.body.access_token).aud).toBe(`${closed.id}:anon`);
  });

  it("needs project auth", async () => {
    const response = await server.request("/api/v1/auth/anonymous/sign-up", { method: "POST" });
    expectKnownError(response, 400, "ACCESS_TYPE_REQUIRED");
  });
});

describe("sign-up rate limit per IP", () => {
  it("lets exactly 30 of 35 parallel sign-ups from one IP through, then password sign-up waits too", async () => {
    const ip = from("203.0.113.50");
    const answers = await Promise.all(Array.from({ length: 35 }, () => anonymousSignUp(undefined, ip)));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(30);
    const limited = answers.filter((a) => a.status === 429);
    expect(limited).toHaveLength(5);
    for (const answer of limited) {
      const retryAfter = Number(answer.headers.get("retry-after"));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(3600);
    }
    const passwordSignUp = await api.signUp({ email: uniqueEmail(), password: "a fine password" }, ip);
    expect(passwordSignUp.status).toBe(429);
    // Another address is not affected.
    expect((await anonymousSignUp(undefined, from("203.0.113.51"))).status).toBe(200);
  });
});
