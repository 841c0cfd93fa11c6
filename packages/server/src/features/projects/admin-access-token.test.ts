/**
 * PROTOCOL.md §6 end to end: an internal user's access token, sent as `x-stack-admin-access-token`, stands in for the
 * keys of every project that user manages, at every access type.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTokenKeyring, randomUuid } from "../../crypto/index.ts";
import { createTestServer, protocolHeaders, type TestServer } from "../../testing/harness.ts";
import { expectKnownError } from "../../testing/known-errors.ts";
import { createSignedInUser } from "../../testing/users.ts";
import { deleteUser } from "../users/service.ts";

let server: TestServer;
let owner: Awaited<ReturnType<typeof createSignedInUser>>;
let projectId: string;

const ACCESS_TYPES = ["client", "server", "admin"] as const;

beforeAll(async () => {
  server = await createTestServer();
  owner = await createSignedInUser(server, "internal", { displayName: "Owner" });
  const created = await server.request("/api/v1/internal/projects", {
    method: "POST",
    headers: server.internal.headers("client", { "x-stack-access-token": owner.accessToken }),
    body: { display_name: "Owned", owner_team_id: owner.user.selectedTeamId },
  });
  expect(created.status).toBe(201);
  projectId = created.body.id;
});
afterAll(() => server.close());

const withToken = (token: string, accessType: (typeof ACCESS_TYPES)[number], project = projectId) =>
  protocolHeaders({ projectId: project, accessType, adminAccessToken: token });

const currentProject = (headers: Record<string, string>) =>
  server.request("/api/v1/projects/current", { headers });

describe("an owner's access token", () => {
  it.each(ACCESS_TYPES)("replaces the keys for %s access", async (accessType) => {
    const response = await currentProject(withToken(owner.accessToken, accessType));
    expect(response.status).toBe(200);
    expect(response.body.id).toBe(projectId);
    const welcome = await server.request("/api/v1", { headers: withToken(owner.accessToken, accessType) });
    expect(welcome.text).toContain(`Project: ${projectId}`);
  });

  it("keeps the access type: admin routes still need admin", async () => {
    const admin = await server.request("/api/v1/internal/projects/current", {
      headers: withToken(owner.accessToken, "admin"),
    });
    expect(admin.status).toBe(200);
    for (const accessType of ["client", "server"] as const) {
      const response = await server.request("/api/v1/internal/projects/current", {
        headers: withToken(owner.accessToken, accessType),
      });
      expectKnownError(response, 401, "INSUFFICIENT_ACCESS_TYPE");
    }
  });

  it("wins over a wrong key sent alongside it", async () => {
    const response = await currentProject({
      ...withToken(owner.accessToken, "admin"),
      "x-stack-super-secret-admin-key": "sak_wrong",
    });
    expect(response.status).toBe(200);
  });
});

describe("refused admin access tokens", () => {
  it.each(ACCESS_TYPES)("a user who does not manage the project: %s", async (accessType) => {
    const stranger = await createSignedInUser(server, "internal");
    expectKnownError(
      await currentProject(withToken(stranger.accessToken, accessType)),
      401,
      "ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN",
    );
  });

  it.each(ACCESS_TYPES)("a token of a project other than internal: %s", async (accessType) => {
    // Even a user of the target project itself is not its administrator.
    const endUser = await createSignedInUser(server, projectId);
    expectKnownError(
      await currentProject(withToken(endUser.accessToken, accessType)),
      401,
      "ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN",
    );
  });

  it.each(ACCESS_TYPES)("an anonymous internal user's token: %s", async (accessType) => {
    const anonymous = await createSignedInUser(server, "internal", { isAnonymous: true });
    expectKnownError(
      await currentProject(withToken(anonymous.accessToken, accessType)),
      401,
      "ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN",
    );
  });

  it.each(ACCESS_TYPES)("an expired token: %s", async (accessType) => {
    // Same master secret, clock an hour back: a genuine token that expired 50 minutes ago.
    const pastKeyring = createTokenKeyring({
      masterSecret: server.deps.env.secret,
      issuerBaseUrl: server.deps.env.baseUrl,
      now: () => Date.now() - 3600 * 1000,
    });
    const expired = await pastKeyring.signAccessToken({
      projectId: "internal",
      branchId: "main",
      userId: owner.user.id,
      refreshTokenId: randomUuid(),
      name: "Owner",
      email: null,
      emailVerified: false,
      selectedTeamId: owner.user.selectedTeamId,
      signedUpAtSeconds: Math.floor(owner.user.signedUpAt.getTime() / 1000),
      isAnonymous: false,
      isRestricted: false,
      restrictedReason: null,
      requiresTotpMfa: false,
      expiresInSeconds: 600,
    });
    const response = await currentProject(withToken(expired, accessType));
    expectKnownError(response, 401, "ADMIN_ACCESS_TOKEN_EXPIRED");
    expect(response.body.details.expired_at_millis).toBeLessThan(Date.now() - 49 * 60 * 1000);
  });

  it.each(ACCESS_TYPES)("garbage: %s", async (accessType) => {
    for (const token of ["garbage", "a.b.c", `${owner.accessToken.slice(0, -4)}AAAA`]) {
      expectKnownError(
        await currentProject(withToken(token, accessType)),
        401,
        "UNPARSABLE_ADMIN_ACCESS_TOKEN",
      );
    }
  });

  it("a token signed with another master secret", async () => {
    const foreignKeyring = createTokenKeyring({
      masterSecret: "some-other-secret-that-is-long-enough-to-pass",
      issuerBaseUrl: server.deps.env.baseUrl,
    });
    const forged = await foreignKeyring.signAccessToken({
      projectId: "internal",
      branchId: "main",
      userId: owner.user.id,
      refreshTokenId: randomUuid(),
      name: null,
      email: null,
      emailVerified: false,
      selectedTeamId: null,
      signedUpAtSeconds: 0,
      isAnonymous: false,
      isRestricted: false,
      restrictedReason: null,
      requiresTotpMfa: false,
      expiresInSeconds: 600,
    });
    expectKnownError(await currentProject(withToken(forged, "admin")), 401, "UNPARSABLE_ADMIN_ACCESS_TOKEN");
  });

  it("a deleted user's token gets a plain 401", async () => {
    const leaving = await createSignedInUser(server, "internal");
    const created = await server.request("/api/v1/internal/projects", {
      method: "POST",
      headers: server.internal.headers("client", { "x-stack-access-token": leaving.accessToken }),
      body: { display_name: "Orphan", owner_team_id: leaving.user.selectedTeamId },
    });
    expect((await currentProject(withToken(leaving.accessToken, "admin", created.body.id))).status).toBe(200);
    await deleteUser(server.deps.db, "internal", leaving.user.id);
    for (const accessType of ACCESS_TYPES) {
      const response = await currentProject(withToken(leaving.accessToken, accessType, created.body.id));
      expect(response.status).toBe(401);
      expect(response.headers.get("x-stack-known-error")).toBeNull();
      expect(response.headers.get("content-type")).toContain("text/plain");
    }
  });

  it("needs an access type, like any key", async () => {
    const response = await currentProject({
      "x-stack-project-id": projectId,
      "x-stack-admin-access-token": owner.accessToken,
    });
    expect(response.status).toBe(400);
    expect(response.headers.get("x-stack-known-error")).toBe("PROJECT_KEY_WITHOUT_ACCESS_TYPE");
  });
});
