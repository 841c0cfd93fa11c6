import { count, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomUuid } from "../../crypto/index.ts";
import { createTestServer, protocolHeaders, type TestServer } from "../../testing/harness.ts";
import { expectKnownError } from "../../testing/known-errors.ts";
import { createSignedInUser } from "../../testing/users.ts";
import { grantTeamPermission } from "../permissions/service.ts";
import { getRenderedConfig } from "../projects/config-store.ts";
import { projects } from "../projects/schema.ts";
import { createProject } from "../projects/service.ts";
import { teamMembers, teams } from "../teams/schema.ts";
import { INTERNAL_TEAM_ID } from "./seed.ts";

let server: TestServer;

beforeAll(async () => {
  server = await createTestServer();
});
afterAll(() => server.close());

type Owner = Awaited<ReturnType<typeof createOwner>>;

/** A dashboard user; the internal project gives each one a personal team, which the dashboard uses as owner. */
async function createOwner(name: string) {
  const signedIn = await createSignedInUser(server, "internal", {
    primaryEmail: `${name}-${randomUuid()}@example.com`,
    primaryEmailVerified: true,
    displayName: name,
  });
  expect(signedIn.user.selectedTeamId).not.toBeNull();
  return { ...signedIn, teamId: signedIn.user.selectedTeamId! };
}

/** An internal team with the given members, written straight to the tables; `admins` also get `team_admin`. */
async function createInternalTeam(members: Owner[], admins: Owner[] = []) {
  const id = randomUuid();
  await server.deps.db.insert(teams).values({ projectId: "internal", id, displayName: "Shared" });
  for (const member of members) {
    await server.deps.db
      .insert(teamMembers)
      .values({ projectId: "internal", teamId: id, userId: member.user.id });
  }
  const config = await getRenderedConfig(server.deps, "internal");
  for (const admin of admins) {
    await grantTeamPermission(server.deps.db, {
      projectId: "internal",
      config,
      teamId: id,
      userId: admin.user.id,
      permissionId: "team_admin",
    });
  }
  return id;
}

const asOwner = (owner: Owner, accessType: "client" | "server" | "admin" = "client") =>
  server.internal.headers(accessType, { "x-stack-access-token": owner.accessToken });

/** Headers that act on a project with nothing but the owner's admin access token (PROTOCOL.md §6). */
const viaAdminToken = (
  projectId: string,
  owner: Owner,
  accessType: "client" | "server" | "admin" = "admin",
) => protocolHeaders({ projectId, accessType, adminAccessToken: owner.accessToken });

async function createFor(owner: Owner, body: Record<string, unknown> = {}) {
  const response = await server.request("/api/v1/internal/projects", {
    method: "POST",
    headers: asOwner(owner),
    body: { display_name: "My app", owner_team_id: owner.teamId, ...body },
  });
  expect(response.status, response.text).toBe(201);
  return response.body;
}

const list = (owner: Owner) => server.request("/api/v1/internal/projects", { headers: asOwner(owner) });

const transfer = (owner: Owner, body: unknown) =>
  server.request("/api/v1/internal/projects/transfer", { method: "POST", headers: asOwner(owner), body });

const projectCount = async () => (await server.deps.db.select({ n: count() }).from(projects))[0]!.n;

describe("POST /internal/projects", () => {
  it("creates a project owned by the user's team with the new-project defaults, and no keys", async () => {
    const owner = await createOwner("Ada");
    const body = await createFor(owner, {
      description: "Ada's app",
      logo_url: "https://example.com/logo.png",
    });
    expect(body).toMatchObject({
      display_name: "My app",
      description: "Ada's app",
      logo_url: "https://example.com/logo.png",
      logo_full_url: null,
      owner_team_id: owner.teamId,
      is_production_mode: false,
      onboarding_status: "completed",
      config: {
        allow_localhost: true,
        sign_up_enabled: true,
        credential_enabled: true,
        magic_link_enabled: false,
        create_team_on_sign_up: false,
        domains: [],
        oauth_providers: [],
        email_config: { type: "shared" },
      },
    });
    expect(body.id).toMatch(/^[0-9a-f-]{36}$/);
    const keys = await server.request("/api/v1/internal/api-keys", {
      headers: viaAdminToken(body.id, owner),
    });
    expect(keys.status).toBe(200);
    expect(keys.body.items).toEqual([]);
  });

  it("applies the legacy config and the other fields of the request", async () => {
    const owner = await createOwner("Grace");
    const body = await createFor(owner, {
      is_production_mode: true,
      onboarding_status: "auth_setup",
      config: {
        magic_link_enabled: true,
        domains: [{ domain: "https://app.example.com", handler_path: "/auth" }],
      },
    });
    expect(body).toMatchObject({
      is_production_mode: true,
      onboarding_status: "auth_setup",
      config: {
        magic_link_enabled: true,
        domains: [{ domain: "https://app.example.com", handler_path: "/auth" }],
      },
    });
  });

  it("works with server and admin access to the internal project too", async () => {
    const owner = await createOwner("Linus");
    for (const accessType of ["server", "admin"] as const) {
      const response = await server.request("/api/v1/internal/projects", {
        method: "POST",
        headers: asOwner(owner, accessType),
        body: { display_name: `Via ${accessType}`, owner_team_id: owner.teamId },
      });
      expect(response.status).toBe(201);
    }
  });

  it("needs a signed-in, non-anonymous user of the internal project", async () => {
    const body = { display_name: "X", owner_team_id: randomUuid() };
    const anonymousUser = await server.request("/api/v1/internal/projects", {
      method: "POST",
      headers: server.internal.headers("client"),
      body,
    });
    expect(anonymousUser.status).toBe(401);
    expect(anonymousUser.headers.get("x-stack-known-error")).toBe("USER_AUTHENTICATION_REQUIRED");

    const anonymous = await createSignedInUser(server, "internal", { isAnonymous: true });
    const response = await server.request("/api/v1/internal/projects", {
      method: "POST",
      headers: server.internal.headers("client", {
        "x-stack-access-token": anonymous.accessToken,
        "x-stack-allow-anonymous-user": "true",
      }),
      body,
    });
    expect(response.headers.get("x-stack-known-error")).toBe("USER_AUTHENTICATION_REQUIRED");
  });

  it("is refused on any other project, signed in or not", async () => {
    const other = await server.createProject("Not internal");
    const user = await createSignedInUser(server, other.id);
    for (const headers of [
      other.headers("client"),
      other.headers("client", { "x-stack-access-token": user.accessToken }),
      other.headers("admin"),
    ]) {
      for (const [method, path] of [
        ["POST", "/api/v1/internal/projects"],
        ["GET", "/api/v1/internal/projects"],
        ["POST", "/api/v1/internal/projects/transfer"],
      ] as const) {
        const body = path.endsWith("transfer")
          ? { project_id: other.id, new_team_id: randomUuid() }
          : method === "POST"
            ? { display_name: "X", owner_team_id: randomUuid() }
            : undefined;
        const response = await server.request(path, { method, headers, body });
        expect(response.status, `${method} ${path}`).toBe(401);
        expect(response.headers.get("x-stack-known-error")).toBe("EXPECTED_INTERNAL_PROJECT");
      }
    }
  });

  it("needs an owner team of the internal project that the user belongs to", async () => {
    const owner = await createOwner("Alan");
    const stranger = await createOwner("Stranger");
    const other = await server.createProject("Team elsewhere");
    const foreignTeam = randomUuid();
    await server.deps.db
      .insert(teams)
      .values({ projectId: other.id, id: foreignTeam, displayName: "Foreign" });
    const before = await projectCount();

    const post = (ownerTeamId: string) =>
      server.request("/api/v1/internal/projects", {
        method: "POST",
        headers: asOwner(owner),
        body: { display_name: "X", owner_team_id: ownerTeamId },
      });
    for (const teamId of [randomUuid(), foreignTeam]) {
      const response = await post(teamId);
      expect(response.status).toBe(404);
      expect(response.headers.get("x-stack-known-error")).toBe("TEAM_NOT_FOUND");
    }
    const notMember = await post(stranger.teamId);
    expect(notMember.status).toBe(404);
    expect(notMember.headers.get("x-stack-known-error")).toBe("TEAM_MEMBERSHIP_NOT_FOUND");
    expect(await projectCount()).toBe(before);
  });

  it.each([
    [{ owner_team_id: "TEAM" }],
    [{ display_name: "X" }],
    [{ display_name: "", owner_team_id: "00000000-0000-4000-8000-000000000000" }],
    [{ display_name: 5, owner_team_id: "00000000-0000-4000-8000-000000000000" }],
    [{ display_name: "X", owner_team_id: "not-a-uuid" }],
    [{ display_name: "X", owner_team_id: "00000000-0000-4000-8000-000000000000", colour: "red" }],
    [{ display_name: "X", owner_team_id: "00000000-0000-4000-8000-000000000000", logo_url: "nope" }],
    [{ display_name: "X", owner_team_id: "00000000-0000-4000-8000-000000000000", onboarding_status: "x" }],
  ])("refuses the body %j", async (body) => {
    const owner = await createOwner("Schema");
    const response = await server.request("/api/v1/internal/projects", {
      method: "POST",
      headers: asOwner(owner),
      body,
    });
    expect(response.status).toBe(400);
    expect(response.headers.get("x-stack-known-error")).toBe("SCHEMA_ERROR");
  });

  it("leaves nothing behind when the config does not validate", async () => {
    const owner = await createOwner("Broken");
    const before = await projectCount();
    const response = await server.request("/api/v1/internal/projects", {
      method: "POST",
      headers: asOwner(owner),
      body: {
        display_name: "Broken",
        owner_team_id: owner.teamId,
        config: { team_creator_default_permissions: [{ id: "no_such_permission" }] },
      },
    });
    expect(response.status).toBe(400);
    expect(await projectCount()).toBe(before);
    expect((await list(owner)).body.items).toEqual([]);
  });
});

describe("GET /internal/projects", () => {
  it("lists the projects of every internal team the user is in, oldest first, and nothing else", async () => {
    const owner = await createOwner("Barbara");
    const colleague = await createOwner("Colleague");
    const shared = await createInternalTeam([owner, colleague]);
    const first = await createFor(owner, { display_name: "First" });
    const second = await createFor(colleague, { display_name: "Shared one", owner_team_id: shared });
    await createFor(colleague, { display_name: "Colleague's own" });

    const response = await list(owner);
    expect(response.status).toBe(200);
    expect(response.body.is_paginated).toBe(false);
    expect(response.body.items.map((p: { id: string }) => p.id)).toEqual([first.id, second.id]);
    expect(response.body.items[0]).toEqual(first);
    expect((await list(colleague)).body.items.map((p: { display_name: string }) => p.display_name)).toEqual([
      "Shared one",
      "Colleague's own",
    ]);
  });

  it("gives a user without projects an empty list, and needs a user", async () => {
    const owner = await createOwner("Nobody");
    expect((await list(owner)).body).toEqual({ items: [], is_paginated: false });
    const anonymous = await server.request("/api/v1/internal/projects", {
      headers: server.internal.headers("client"),
    });
    expect(anonymous.headers.get("x-stack-known-error")).toBe("USER_AUTHENTICATION_REQUIRED");
  });

  it("ignores memberships recorded under another project", async () => {
    const owner = await createOwner("Isolated");
    const other = await server.createProject("Tenant");
    const teamId = randomUuid();
    await server.deps.db
      .insert(teams)
      .values({ projectId: other.id, id: teamId, displayName: "Tenant team" });
    // A row that claims the internal user is in another tenant's team must not grant anything.
    await server.deps.db.insert(teamMembers).values({ projectId: other.id, teamId, userId: owner.user.id });
    await createProject(server.deps, { display_name: "Tenant-owned", owner_team_id: teamId });
    expect((await list(owner)).body.items).toEqual([]);
  });
});

describe("POST /internal/projects/transfer", () => {
  it("moves a project to another team of the user's", async () => {
    const owner = await createOwner("Mover");
    const colleague = await createOwner("Receiver");
    const shared = await createInternalTeam([owner, colleague]);
    const project = await createFor(owner);
    expect((await list(colleague)).body.items).toEqual([]);

    const response = await transfer(owner, { project_id: project.id, new_team_id: shared });
    expect(response.status).toBe(200);
    // A string, as the reference answers (PROTOCOL-EXTRA §8.12).
    expect(response.text).toBe('{"success":"true"}');
    expect((await list(colleague)).body.items.map((p: { id: string }) => p.id)).toEqual([project.id]);
    const current = await server.request("/api/v1/internal/projects/current", {
      headers: viaAdminToken(project.id, colleague),
    });
    expect(current.body.owner_team_id).toBe(shared);
  });

  it("refuses projects the user does not manage, and teams they are not in", async () => {
    const owner = await createOwner("Careful");
    const stranger = await createOwner("Outsider");
    const project = await createFor(owner);
    const strangers = await createFor(stranger);

    for (const projectId of [strangers.id, randomUuid(), "internal-ish"]) {
      const response = await transfer(owner, { project_id: projectId, new_team_id: owner.teamId });
      expect(response.status).toBe(404);
      expect(response.headers.get("x-stack-known-error")).toBe("PROJECT_NOT_FOUND");
    }
    const notMember = await transfer(owner, { project_id: project.id, new_team_id: stranger.teamId });
    expect(notMember.headers.get("x-stack-known-error")).toBe("TEAM_MEMBERSHIP_NOT_FOUND");
    const noTeam = await transfer(owner, { project_id: project.id, new_team_id: randomUuid() });
    expect(noTeam.headers.get("x-stack-known-error")).toBe("TEAM_NOT_FOUND");
    // Nothing moved.
    expect((await list(owner)).body.items.map((p: { id: string }) => p.id)).toEqual([project.id]);
    expect((await list(stranger)).body.items.map((p: { id: string }) => p.id)).toEqual([strangers.id]);

    const unsigned = await server.request("/api/v1/internal/projects/transfer", {
      method: "POST",
      headers: server.internal.headers("client"),
      body: { project_id: project.id, new_team_id: owner.teamId },
    });
    expect(unsigned.headers.get("x-stack-known-error")).toBe("USER_AUTHENTICATION_REQUIRED");
  });

  it("needs team_admin in the current owner team: a plain member gets TEAM_PERMISSION_REQUIRED", async () => {
    const admin = await createOwner("Admin");
    const member = await createOwner("Member");
    const shared = await createInternalTeam([admin, member], [admin]);
    const moved = await transfer(admin, { project_id: (await createFor(admin)).id, new_team_id: shared });
    expect(moved.status, moved.text).toBe(200);
    const project = (await list(member)).body.items[0];

    const refused = await transfer(member, { project_id: project.id, new_team_id: member.teamId });
    expectKnownError(refused, 401, "TEAM_PERMISSION_REQUIRED", {
      team_id: shared,
      user_id: member.user.id,
      permission_id: "team_admin",
    });
    expect((await list(member)).body.items.map((p: { owner_team_id: string }) => p.owner_team_id)).toEqual([
      shared,
    ]);
  });

  it("never moves the internal project itself", async () => {
    const owner = await createOwner("Insider");
    await server.deps.db
      .insert(teamMembers)
      .values({ projectId: "internal", teamId: INTERNAL_TEAM_ID, userId: owner.user.id });
    const response = await transfer(owner, { project_id: "internal", new_team_id: owner.teamId });
    expect(response.status).toBe(400);
    const [internal] = await server.deps.db.select().from(projects).where(eq(projects.id, "internal"));
    expect(internal!.ownerTeamId).toBe(INTERNAL_TEAM_ID);
  });

  it.each([
    [{}],
    [{ project_id: "x" }],
    [{ project_id: "x", new_team_id: "y" }],
    [{ new_team_id: randomUuid() }],
  ])("refuses the body %j", async (body) => {
    const owner = await createOwner("Schema");
    const response = await transfer(owner, body);
    expect(response.headers.get("x-stack-known-error")).toBe("SCHEMA_ERROR");
  });
});

describe("an owner's whole flow", () => {
  it("creates, lists, manages through the admin access token alone, transfers, and loses access", async () => {
    const owner = await createOwner("Owner");
    const heir = await createOwner("Heir");
    const created = await createFor(owner, { display_name: "Flow app" });
    expect((await list(owner)).body.items.map((p: { id: string }) => p.id)).toEqual([created.id]);

    const current = await server.request("/api/v1/internal/projects/current", {
      headers: viaAdminToken(created.id, owner),
    });
    expect(current.status).toBe(200);
    expect(current.body).toEqual(created);

    const keys = await server.request("/api/v1/internal/api-keys", {
      method: "POST",
      headers: viaAdminToken(created.id, owner),
      body: {
        description: "first keys",
        expires_at_millis: null,
        has_publishable_client_key: true,
        has_secret_server_key: true,
        has_super_secret_admin_key: true,
      },
    });
    expect(keys.status).toBe(200);
    expect(keys.body.super_secret_admin_key).toMatch(/^sak_/);
    const withKey = await server.request("/api/v1/internal/projects/current", {
      headers: protocolHeaders({
        projectId: created.id,
        accessType: "admin",
        superSecretAdminKey: keys.body.super_secret_admin_key,
      }),
    });
    expect(withKey.status).toBe(200);

    const renamed = await server.request("/api/v1/internal/projects/current", {
      method: "PATCH",
      headers: viaAdminToken(created.id, owner),
      body: { display_name: "Renamed" },
    });
    expect(renamed.body.display_name).toBe("Renamed");

    const shared = await createInternalTeam([owner, heir], [heir]);
    expect((await transfer(owner, { project_id: created.id, new_team_id: shared })).status).toBe(200);
    expect((await transfer(heir, { project_id: created.id, new_team_id: heir.teamId })).status).toBe(200);

    const lost = await server.request("/api/v1/internal/projects/current", {
      headers: viaAdminToken(created.id, owner),
    });
    expect(lost.status).toBe(401);
    expect(lost.headers.get("x-stack-known-error")).toBe("ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN");
    expect((await list(owner)).body.items).toEqual([]);
    const heirs = await server.request("/api/v1/internal/projects/current", {
      headers: viaAdminToken(created.id, heir),
    });
    expect(heirs.status).toBe(200);
    expect(heirs.body.owner_team_id).toBe(heir.teamId);
  });
});
