import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
import { createSignedInUser } from "../../testing/users.ts";
import { MARKETING_CATEGORY, TRANSACTIONAL_CATEGORY } from "./categories.ts";
import { usersAcceptingCategory } from "./service.ts";

let server: TestServer;
let project: TestProject;

beforeAll(async () => {
  server = await createTestServer();
  project = await server.createProject("Notifications");
});
afterAll(() => server.close());

const TRANSACTIONAL = "7bb82d33-2f54-4a3d-9d23-82739e0d66ef";
const MARKETING = "4f6f8873-3d04-46bd-8bef-18338b1a1b4c";

async function signedIn(target: TestProject = project) {
  const { user, accessToken } = await createSignedInUser(server, target.id);
  return { user, client: target.headers("client", { "x-stack-access-token": accessToken }) };
}
const list = (userId: string, headers: Record<string, string>) =>
  server.request(`/api/v1/emails/notification-preference/${userId}`, { headers });
const set = (userId: string, categoryId: string, headers: Record<string, string>, body: unknown) =>
  server.request(`/api/v1/emails/notification-preference/${userId}/${categoryId}`, {
    method: "PATCH",
    headers,
    body,
  });

describe("notification preferences", () => {
  it("lists the two fixed categories, both enabled by default", async () => {
    const { client } = await signedIn();
    const response = await list("me", client);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      items: [
        {
          notification_category_id: TRANSACTIONAL,
          notification_category_name: "Transactional",
          enabled: true,
          can_disable: false,
        },
        {
          notification_category_id: MARKETING,
          notification_category_name: "Marketing",
          enabled: true,
          can_disable: true,
        },
      ],
      is_paginated: false,
    });
  });

  it("disables and re-enables Marketing", async () => {
    const { user, client } = await signedIn();
    const disabled = await set("me", MARKETING, client, { enabled: false });
    expect(disabled.status).toBe(200);
    expect(disabled.body).toEqual({
      notification_category_id: MARKETING,
      notification_category_name: "Marketing",
      enabled: false,
      can_disable: true,
    });
    const after = await list(user.id, client);
    expect(after.body.items.map((item: { enabled: boolean }) => item.enabled)).toEqual([true, false]);
    expect(await usersAcceptingCategory(server.deps.db, project.id, [user.id], MARKETING_CATEGORY)).toEqual(
      new Set(),
    );
    expect(
      await usersAcceptingCategory(server.deps.db, project.id, [user.id], TRANSACTIONAL_CATEGORY),
    ).toEqual(new Set([user.id]));

    expect((await set(user.id, MARKETING, client, { enabled: true })).body.enabled).toBe(true);
    expect((await list("me", client)).body.items[1].enabled).toBe(true);
  });

  it("refuses to disable Transactional, and enabling it is harmless", async () => {
    const { client } = await signedIn();
    const response = await set("me", TRANSACTIONAL, client, { enabled: false });
    expect(response.status).toBe(400);
    expect(response.text).toContain("cannot be disabled");
    expect((await set("me", TRANSACTIONAL, client, { enabled: true })).body.enabled).toBe(true);
    expect((await list("me", client)).body.items[0].enabled).toBe(true);
  });

  it("answers 404 for unknown categories and 400 for bad bodies", async () => {
    const { client } = await signedIn();
    for (const category of ["00000000-0000-4000-8000-000000000000", "Marketing", "nope"]) {
      const response = await set("me", category, client, { enabled: false });
      expect(response.status, category).toBe(404);
    }
    for (const body of [{}, { enabled: "no" }, { enabled: false, extra: 1 }]) {
      expect((await set("me", MARKETING, client, body)).status, JSON.stringify(body)).toBe(400);
    }
    expect((await list("not-a-uuid", client)).status).toBe(400);
  });

  it("keeps clients to themselves and lets servers act on anyone in the project", async () => {
    const me = await signedIn();
    const other = await signedIn();
    expect((await list(other.user.id, me.client)).status).toBe(403);
    expect((await set(other.user.id, MARKETING, me.client, { enabled: false })).status).toBe(403);
    expect((await list("me", project.headers("client"))).body.code).toBe("CANNOT_GET_OWN_USER_WITHOUT_USER");

    const server_ = project.headers("server");
    expect((await set(other.user.id, MARKETING, server_, { enabled: false })).status).toBe(200);
    expect((await list(other.user.id, project.headers("admin"))).body.items[1].enabled).toBe(false);
    // The other user's choice did not touch mine.
    expect((await list("me", me.client)).body.items[1].enabled).toBe(true);

    const missing = await list("00000000-0000-4000-8000-000000000000", server_);
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe("USER_NOT_FOUND");
  });

  it("does not reach users of another project", async () => {
    const { user } = await signedIn();
    const other = await server.createProject("Other notifications");
    const response = await set(user.id, MARKETING, other.headers("server"), { enabled: false });
    expect(response.body.code).toBe("USER_NOT_FOUND");
    expect((await list(user.id, other.headers("server"))).body.code).toBe("USER_NOT_FOUND");
  });
});
