import { eq } from "drizzle-orm";
import { decodeJwt } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACCESS_TOKEN_CLAIMS } from "../../testing/access-token-claims.ts";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
import { createSignedInUser } from "../../testing/users.ts";
import { sessions } from "./schema.ts";

let server: TestServer;
let project: TestProject;

beforeAll(async () => {
  server = await createTestServer();
  project = await server.createProject("Sessions");
});
afterAll(() => server.close());

const tokenRequest = (body: string, contentType = "application/x-www-form-urlencoded;charset=UTF-8") =>
  server.request("/api/v1/auth/oauth/token", {
    method: "POST",
    headers: { "content-type": contentType },
    body,
  });

describe("access tokens", () => {
  it("carry exactly the documented claims", async () => {
    const { user, accessToken } = await createSignedInUser(server, project.id, {
      primaryEmail: "Ada@Example.com",
      primaryEmailVerified: true,
      displayName: "Ada",
    });
    const claims = decodeJwt(accessToken);
    expect(Object.keys(claims).sort()).toEqual([...ACCESS_TOKEN_CLAIMS].sort());
    expect(claims).toMatchObject({
      sub: user.id,
      aud: project.id,
      iss: `http://localhost:8102/api/v1/projects/${project.id}`,
      project_id: project.id,
      branch_id: "main",
      role: "authenticated",
      name: "Ada",
      email: "ada@example.com",
      email_verified: true,
      is_anonymous: false,
      is_restricted: false,
      restricted_reason: null,
    });
  });

  it("authenticate requests and are refused for another project", async () => {
    const { user, accessToken } = await createSignedInUser(server, project.id);
    const welcome = await server.request("/api/v1", {
      headers: project.headers("client", { "x-stack-access-token": accessToken }),
    });
    expect(welcome.text).toContain(`User: ${user.id}`);
    const other = await server.createProject("Other");
    const response = await server.request("/api/v1/projects/current", {
      headers: other.headers("client", { "x-stack-access-token": accessToken }),
    });
    expect(response.headers.get("x-stack-known-error")).toBe("INVALID_PROJECT_FOR_ACCESS_TOKEN");
    expect(response.body.details).toEqual({ expected_project_id: other.id, actual_project_id: project.id });
  });

  it("of anonymous users need the allow-anonymous header", async () => {
    const { accessToken } = await createSignedInUser(server, project.id, { isAnonymous: true });
    expect(decodeJwt(accessToken).aud).toBe(`${project.id}:anon`);
    const refused = await server.request("/api/v1/projects/current", {
      headers: project.headers("client", { "x-stack-access-token": accessToken }),
    });
    expect(refused.headers.get("x-stack-known-error")).toBe("ANONYMOUS_AUTHENTICATION_NOT_ALLOWED");
    const allowed = await server.request("/api/v1/projects/current", {
      headers: project.headers("client", {
        "x-stack-access-token": accessToken,
        "x-stack-allow-anonymous-user": "true",
      }),
    });
    expect(allowed.status).toBe(200);
  });
});

describe("POST /auth/oauth/token (refresh grant)", () => {
  it("answers form-encoded and JSON bodies the way oauth4webapi expects", async () => {
    const { refreshToken, user } = await createSignedInUser(server, project.id);
    const form = await tokenRequest(
      `grant_type=refresh_token&refresh_token=${refreshToken}&client_id=${project.id}&client_secret=${project.keys.publishableClientKey}`,
    );
    expect(form.status).toBe(200);
    expect(form.headers.get("content-type")).toContain("application/json");
    expect(form.headers.get("pragma")).toBe("no-cache");
    expect(form.headers.get("cache-control")).toBe("no-store");
    expect(form.body).toMatchObject({
      token_type: "Bearer",
      scope: "legacy",
      after_callback_redirect_url: null,
    });
    expect(typeof form.body.expires_in).toBe("number");
    expect(decodeJwt(form.body.access_token).sub).toBe(user.id);
    expect(form.body).not.toHaveProperty("refresh_token");

    const json = await tokenRequest(
      JSON.stringify({
        grant_type: "refresh_token",
        refresh_token: refreshToken,
        client_id: `${project.id}#main`,
        client_secret: "__stack_public_client__",
      }),
      "application/json",
    );
    expect(json.status).toBe(200);
  });

  it("carries the current name and email, and moves the user's last activity forward with the next activity batch", async () => {
    const { refreshToken, user } = await createSignedInUser(server, project.id, {
      primaryEmail: "refresh@example.com",
      primaryEmailVerified: true,
    });
    const lastActive = async () =>
      (await server.request(`/api/v1/users/${user.id}`, { headers: project.headers("server") })).body
        .last_active_at_millis as number;
    const before = await lastActive();
    await server.request(`/api/v1/users/${user.id}`, {
      method: "PATCH",
      headers: project.headers("server"),
      body: { display_name: "Renamed" },
    });
    const refreshed = await tokenRequest(
      `grant_type=refresh_token&refresh_token=${refreshToken}&client_id=${project.id}&client_secret=${project.keys.publishableClientKey}`,
    );
    expect(decodeJwt(refreshed.body.access_token)).toMatchObject({
      name: "Renamed",
      email: "refresh@example.com",
      email_verified: true,
    });
    await server.deps.activity.flush();
    expect(await lastActive()).toBeGreaterThan(before);

    // A batch that arrives late never moves it back.
    const latest = await lastActive();
    server.deps.activity.record({
      projectId: project.id,
      type: "$token-refresh",
      data: {},
      userId: user.id,
      occurredAt: new Date(latest - 60_000),
    });
    await server.deps.activity.flush();
    expect(await lastActive()).toBe(latest);
  });

  it("refuses unknown refresh tokens, bad clients and unknown grants", async () => {
    const { refreshToken } = await createSignedInUser(server, project.id);
    const unknown = await tokenRequest(`grant_type=refresh_token&refresh_token=nope&client_id=${project.id}`);
    expect(unknown.status).toBe(401);
    expect(unknown.headers.get("x-stack-known-error")).toBe("REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED");

    const badSecret = await tokenRequest(
      `grant_type=refresh_token&refresh_token=${refreshToken}&client_id=${project.id}&client_secret=pck_wrong`,
    );
    expect(badSecret.headers.get("x-stack-known-error")).toBe("INVALID_OAUTH_CLIENT_ID_OR_SECRET");

    const badClient = await tokenRequest(
      `grant_type=refresh_token&refresh_token=${refreshToken}&client_id=nope`,
    );
    expect(badClient.headers.get("x-stack-known-error")).toBe("INVALID_OAUTH_CLIENT_ID_OR_SECRET");

    const otherProject = await server.createProject("Other2");
    const crossTenant = await tokenRequest(
      `grant_type=refresh_token&refresh_token=${refreshToken}&client_id=${otherProject.id}`,
    );
    expect(crossTenant.headers.get("x-stack-known-error")).toBe("REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED");

    const grant = await tokenRequest(`grant_type=password&client_id=${project.id}`);
    expect(grant.status).toBe(400);
    expect(grant.body.error).toBe("unsupported_grant_type");
  });
});

describe("sessions", () => {
  it("lists, refreshes, signs out and deletes", async () => {
    const first = await createSignedInUser(server, project.id, { primaryEmail: "s@example.com" });
    const second = await server.request("/api/v1/auth/sessions", {
      method: "POST",
      headers: project.headers("server"),
      body: { user_id: first.user.id },
    });
    expect(second.status).toBe(200);
    const asUser = project.headers("client", { "x-stack-access-token": first.accessToken });

    const list = await server.request("/api/v1/auth/sessions?user_id=me", { headers: asUser });
    expect(list.body.items).toHaveLength(2);
    expect(list.body.items.filter((s: any) => s.is_current_session)).toHaveLength(1);
    const current = list.body.items.find((s: any) => s.is_current_session);
    const other = list.body.items.find((s: any) => !s.is_current_session);

    const refreshed = await server.request("/api/v1/auth/sessions/current/refresh", {
      method: "POST",
      headers: { ...asUser, "x-stack-refresh-token": first.refreshToken },
    });
    expect(decodeJwt(refreshed.body.access_token).refresh_token_id).toBe(current.id);

    const deleteCurrent = await server.request(`/api/v1/auth/sessions/${current.id}?user_id=me`, {
      method: "DELETE",
      headers: asUser,
    });
    expect(deleteCurrent.headers.get("x-stack-known-error")).toBe("CANNOT_DELETE_CURRENT_SESSION");

    const deleteOther = await server.request(`/api/v1/auth/sessions/${other.id}?user_id=me`, {
      method: "DELETE",
      headers: asUser,
    });
    expect(deleteOther.body).toEqual({ success: true });
    const secondRefresh = await tokenRequest(
      `grant_type=refresh_token&refresh_token=${second.body.refresh_token}&client_id=${project.id}`,
    );
    expect(secondRefresh.headers.get("x-stack-known-error")).toBe("REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED");

    const signOut = await server.request("/api/v1/auth/sessions/current", {
      method: "DELETE",
      headers: asUser,
      body: {},
    });
    expect(signOut.body).toEqual({ success: true });
    const again = await server.request("/api/v1/auth/sessions/current", {
      method: "DELETE",
      headers: asUser,
      body: {},
    });
    expect(again.headers.get("x-stack-known-error")).toBe("REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED");
    const rows = await server.deps.db.select().from(sessions).where(eq(sessions.userId, first.user.id));
    expect(rows).toHaveLength(0);
  });

  it("keep the browser's user agent of the sign-in and of the last refresh (a Gatehouse extension)", async () => {
    const chrome =
      "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
    const firefox = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0";
    const signUp = await server.request("/api/v1/auth/anonymous/sign-up", {
      method: "POST",
      headers: { ...project.headers("client"), "user-agent": chrome },
    });
    expect(signUp.status, signUp.text).toBe(200);
    const userAgents = async () => {
      // A refresh's touch is written with the activity batch (sessions/touches.ts).
      await server.deps.activity.flush();
      const list = await server.request(`/api/v1/auth/sessions?user_id=${signUp.body.user_id}`, {
        headers: project.headers("server"),
      });
      expect(list.status, list.text).toBe(200);
      return list.body.items.map(
        (item: { last_used_user_agent: string | null }) => item.last_used_user_agent,
      );
    };
    expect(await userAgents()).toEqual([chrome]);

    const refresh = (userAgent?: string) =>
      server.request("/api/v1/auth/oauth/token", {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          ...(userAgent === undefined ? {} : { "user-agent": userAgent }),
        },
        body: `grant_type=refresh_token&refresh_token=${signUp.body.refresh_token}&client_id=${project.id}`,
      });
    expect((await refresh(firefox)).status).toBe(200);
    expect(await userAgents()).toEqual([firefox]);
    // A refresh without the header keeps what was known; a very long one is cut to 512 characters.
    expect((await refresh()).status).toBe(200);
    expect(await userAgents()).toEqual([firefox]);
    expect((await refresh(`X${"y".repeat(2000)}`)).status).toBe(200);
    expect((await userAgents())[0]).toHaveLength(512);

    // Sessions a server creates for a user carry no browser.
    const created = await server.request("/api/v1/auth/sessions", {
      method: "POST",
      headers: project.headers("server"),
      body: { user_id: signUp.body.user_id },
    });
    expect(created.status).toBe(200);
    expect((await userAgents()).filter((agent: string | null) => agent === null)).toHaveLength(1);
  });

  it("hides impersonation sessions from the user's client, except from the impersonation session itself", async () => {
    const own = await createSignedInUser(server, project.id, { primaryEmail: "imp@example.com" });
    const impersonation = await server.request("/api/v1/auth/sessions", {
      method: "POST",
      headers: project.headers("server"),
      body: { user_id: own.user.id, is_impersonation: true },
    });
    expect(impersonation.status).toBe(200);
    const list = async (accessToken: string, accessType: "client" | "server" | "admin" = "client") =>
      (
        await server.request(`/api/v1/auth/sessions?user_id=${own.user.id}`, {
          headers: project.headers(accessType, { "x-stack-access-token": accessToken }),
        })
      ).body.items as { is_impersonation: boolean; is_current_session: boolean }[];

    // The user's own sign-in sees only itself.
    expect((await list(own.accessToken)).map((s) => [s.is_current_session, s.is_impersonation])).toEqual([
      [true, false],
    ]);
    // The impersonating admin's browser sees its own session, marked, but never others' impersonations.
    expect(
      (await list(impersonation.body.access_token)).map((s) => [s.is_current_session, s.is_impersonation]),
    ).toEqual([
      [true, true],
      [false, false],
    ]);
    // The app's server and the project's admins see every session: they are the ones who create impersonations.
    expect(await list(own.accessToken, "server")).toHaveLength(2);
    expect(await list(own.accessToken, "admin")).toHaveLength(2);
  });

  it("stores refresh tokens only as hashes", async () => {
    const { user, refreshToken } = await createSignedInUser(server, project.id);
    const [row] = await server.deps.db.select().from(sessions).where(eq(sessions.userId, user.id));
    expect(row!.refreshTokenHash).toMatch(/^[0-9a-f]{64}$/);
    expect(row!.refreshTokenHash).not.toBe(refreshToken);
  });

  it("keeps clients to their own user and refuses unknown users", async () => {
    const a = await createSignedInUser(server, project.id);
    const b = await createSignedInUser(server, project.id);
    const peek = await server.request(`/api/v1/auth/sessions?user_id=${b.user.id}`, {
      headers: project.headers("client", { "x-stack-access-token": a.accessToken }),
    });
    expect(peek.status).toBe(403);
    const create = await server.request("/api/v1/auth/sessions", {
      method: "POST",
      headers: project.headers("server"),
      body: { user_id: "3b8f0c3e-8a0e-4f55-9a57-1c2d3e4f5a6b" },
    });
    expect(create.headers.get("x-stack-known-error")).toBe("USER_ID_DOES_NOT_EXIST");
  });

  it("answers a server deleting a session of a user id that is not a uuid with a known error, not a 500", async () => {
    const { user } = await createSignedInUser(server, project.id);
    const [row] = await server.deps.db.select().from(sessions).where(eq(sessions.userId, user.id));
    const response = await server.request(`/api/v1/auth/sessions/${row!.id}?user_id=not-a-uuid`, {
      method: "DELETE",
      headers: project.headers("server"),
    });
    expect(response.status, response.text).toBe(401);
    expect(response.headers.get("x-stack-known-error")).toBe("REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED");
    expect(await server.deps.db.select().from(sessions).where(eq(sessions.id, row!.id))).toHaveLength(1);
  });
});

describe("JWKS", () => {
  it("publishes 2, 4 or 6 keys and 404s for unknown projects", async () => {
    const base = `/api/v1/projects/${project.id}/.well-known/jwks.json`;
    expect((await server.request(base)).body.keys).toHaveLength(2);
    expect((await server.request(`${base}?include_restricted=true`)).body.keys).toHaveLength(4);
    const all = await server.request(`${base}?include_anonymous=true`);
    expect(all.body.keys).toHaveLength(6);
    expect(all.headers.get("cache-control")).toBe("public, max-age=3600");
    // Exactly the reference's members (PROTOCOL.md §5.2): an app comparing key sets sees no `use`.
    for (const key of all.body.keys)
      expect(Object.keys(key).sort()).toEqual(["alg", "crv", "kid", "kty", "x", "y"]);
    expect((await server.request("/api/v1/projects/nope/.well-known/jwks.json")).status).toBe(404);
  });

  it("404s for a project id with a NUL byte, which PostgreSQL cannot even compare", async () => {
    const response = await server.request("/api/v1/projects/%00/.well-known/jwks.json");
    expect(response.status, response.text).toBe(404);
  });
});
