import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
import { uniqueEmail } from "../../testing/known-errors.ts";
import { createSignedInUser } from "../../testing/users.ts";
import { findPrimaryChannel } from "../users/service.ts";

let server: TestServer;
let project: TestProject;

beforeAll(async () => {
  server = await createTestServer();
  project = await server.createProject("Channels");
});
afterAll(() => server.close());

type Caller = { accessType: "client" | "server" | "admin"; token?: string; project?: TestProject };

function call(method: string, path: string, caller: Caller, body?: unknown) {
  const target = caller.project ?? project;
  return server.request(`/api/v1${path}`, {
    method,
    headers: target.headers(caller.accessType, caller.token ? { "x-stack-access-token": caller.token } : {}),
    body,
  });
}

/** A signed-in user with a verified primary email, and a client caller acting as them. */
async function signedIn(target: TestProject = project) {
  const email = uniqueEmail();
  const { user, accessToken } = await createSignedInUser(server, target.id, {
    primaryEmail: email,
    primaryEmailVerified: true,
  });
  return { user, email, client: { accessType: "client", token: accessToken, project: target } as Caller };
}

const server_: Caller = { accessType: "server" };
const list = async (caller: Caller, userId = "me") =>
  (await call("GET", `/contact-channels?user_id=${userId}`, caller)).body.items as Record<string, unknown>[];

describe("contact channel CRUD for clients", () => {
  it("lists, creates, reads, updates and deletes the signed-in user's channels", async () => {
    const { user, email, client } = await signedIn();
    const [primary] = await list(client);
    expect(primary).toEqual({
      user_id: user.id,
      id: expect.any(String),
      value: email,
      type: "email",
      used_for_auth: true,
      is_verified: true,
      is_primary: true,
    });

    const work = uniqueEmail("work");
    const created = await call("POST", "/contact-channels", client, {
      user_id: "me",
      value: `  ${work.toUpperCase()} `,
      type: "email",
      used_for_auth: false,
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      value: work,
      used_for_auth: false,
      is_verified: false,
      is_primary: false,
    });
    const id = created.body.id;

    expect((await list(client)).map((c) => c.value)).toEqual([email, work]);
    expect((await call("GET", `/contact-channels/me/${id}`, client)).body).toEqual(created.body);
    expect((await call("GET", `/contact-channels/${user.id}/${id}`, client)).body).toEqual(created.body);

    const updated = await call("PATCH", `/contact-channels/me/${id}`, client, { used_for_auth: true });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ used_for_auth: true, is_primary: false });

    const deleted = await call("DELETE", `/contact-channels/me/${id}`, client);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ success: true });
    const gone = await call("GET", `/contact-channels/me/${id}`, client);
    expect(gone.status).toBe(404);
    expect(gone.text).toBe("Contact channel not found.");
    expect((await call("DELETE", `/contact-channels/me/${id}`, client)).status).toBe(404);
  });

  it("refuses bad input with SCHEMA_ERROR, including is_verified from a client", async () => {
    const { client } = await signedIn();
    const base = { user_id: "me", value: uniqueEmail(), type: "email", used_for_auth: false };
    for (const body of [
      { ...base, value: "nope" },
      { ...base, type: "phone" },
      { ...base, used_for_auth: "yes" },
      { user_id: "me", value: uniqueEmail(), type: "email" },
      { ...base, extra: true },
      { ...base, is_verified: true },
    ]) {
      const response = await call("POST", "/contact-channels", client, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.headers.get("x-stack-known-error")).toBe("SCHEMA_ERROR");
    }
    const [primary] = await list(client);
    const patch = await call("PATCH", `/contact-channels/me/${primary!.id}`, client, { is_verified: false });
    expect(patch.body.details.message).toContain("body contains unknown properties: is_verified");
    expect((await list(client))[0]).toMatchObject({ is_verified: true });
    const query = await call("GET", "/contact-channels?user_id=me&extra=1", client);
    expect(query.headers.get("x-stack-known-error")).toBe("SCHEMA_ERROR");
  });

  it("keeps a value once per user, whatever its case", async () => {
    const { email, client } = await signedIn();
    const again = await call("POST", "/contact-channels", client, {
      user_id: "me",
      value: email.toUpperCase(),
      type: "email",
      used_for_auth: false,
    });
    expect(again.status).toBe(400);
    expect(again.text).toContain("already has the contact channel");
    const other = await call("POST", "/contact-channels", client, {
      user_id: "me",
      value: uniqueEmail(),
      type: "email",
      used_for_auth: false,
    });
    const renamed = await call("PATCH", `/contact-channels/me/${other.body.id}`, client, { value: email });
    expect(renamed.status).toBe(400);
  });

  it("keeps a sign-in address to one account of the project", async () => {
    const alice = await signedIn();
    const bob = await signedIn();
    const stolen = await call("POST", "/contact-channels", bob.client, {
      user_id: "me",
      value: alice.email,
      type: "email",
      used_for_auth: true,
    });
    expect(stolen.status).toBe(409);
    expect(stolen.body).toMatchObject({
      code: "CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE",
      details: { type: "email", contact_channel_value: alice.email, would_work_if_email_was_verified: false },
    });

    const [bobPrimary] = await list(bob.client);
    const rename = await call("PATCH", `/contact-channels/me/${bobPrimary!.id}`, bob.client, {
      value: alice.email.toUpperCase(),
    });
    expect(rename.headers.get("x-stack-known-error")).toBe(
      "CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE",
    );
    expect((await list(bob.client))[0]).toMatchObject({ value: bob.email, is_verified: true });

    // As a plain contact address it is fine; turning it into a sign-in address is not.
    const contact = await call("POST", "/contact-channels", bob.client, {
      user_id: "me",
      value: alice.email,
      type: "email",
      used_for_auth: false,
    });
    expect(contact.status).toBe(201);
    const promote = await call("PATCH", `/contact-channels/me/${contact.body.id}`, bob.client, {
      used_for_auth: true,
    });
    expect(promote.headers.get("x-stack-known-error")).toBe(
      "CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE",
    );

    // Once Alice stops signing in with it, Bob may.
    const [alicePrimary] = await list(alice.client);
    await call("PATCH", `/contact-channels/me/${alicePrimary!.id}`, alice.client, { used_for_auth: false });
    const retry = await call("PATCH", `/contact-channels/me/${contact.body.id}`, bob.client, {
      used_for_auth: true,
    });
    expect(retry.status).toBe(200);
  });

  it("lets exactly one of two parallel claims of a sign-in address through", async () => {
    const [alice, bob] = await Promise.all([signedIn(), signedIn()]);
    const value = uniqueEmail("contested");
    const claims = await Promise.all(
      [alice, bob].map((who) =>
        call("POST", "/contact-channels", who.client, {
          user_id: "me",
          value,
          type: "email",
          used_for_auth: true,
        }),
      ),
    );
    expect(claims.map((c) => c.status).sort()).toEqual([201, 409]);
    expect(claims.find((c) => c.status === 409)?.headers.get("x-stack-known-error")).toBe(
      "CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE",
    );
  });

  it("keeps one primary channel when two are promoted at once", async () => {
    const { client } = await signedIn();
    const created = await Promise.all(
      [uniqueEmail(), uniqueEmail()].map((value) =>
        call("POST", "/contact-channels", client, {
          user_id: "me",
          value,
          type: "email",
          used_for_auth: false,
        }),
      ),
    );
    const results = await Promise.all(
      created.map((c) => call("PATCH", `/contact-channels/me/${c.body.id}`, client, { is_primary: true })),
    );
    for (const result of results) expect(result.status, result.text).toBe(200);
    expect((await list(client)).filter((c) => c.is_primary)).toHaveLength(1);
  });

  it("moves the primary flag, keeping at most one primary channel", async () => {
    const { user, email, client } = await signedIn();
    const second = await call("POST", "/contact-channels", client, {
      user_id: "me",
      value: uniqueEmail(),
      type: "email",
      used_for_auth: false,
      is_primary: true,
    });
    expect(second.body.is_primary).toBe(true);
    let channels = await list(client);
    expect(channels.filter((c) => c.is_primary).map((c) => c.id)).toEqual([second.body.id]);
    expect((await findPrimaryChannel(server.deps.db, project.id, user.id))?.id).toBe(second.body.id);

    const first = channels.find((c) => c.value === email)!;
    await call("PATCH", `/contact-channels/me/${first.id}`, client, { is_primary: true });
    channels = await list(client);
    expect(channels.filter((c) => c.is_primary).map((c) => c.id)).toEqual([first.id]);

    // Un-setting it, or deleting the primary channel, leaves the user without a primary email.
    await call("PATCH", `/contact-channels/me/${first.id}`, client, { is_primary: false });
    expect((await list(client)).some((c) => c.is_primary)).toBe(false);
    await call("PATCH", `/contact-channels/me/${second.body.id}`, client, { is_primary: true });
    await call("DELETE", `/contact-channels/me/${second.body.id}`, client);
    expect((await list(client)).some((c) => c.is_primary)).toBe(false);
    expect(await findPrimaryChannel(server.deps.db, project.id, user.id)).toBeNull();
  });

  it("makes a verified channel unverified when its value changes", async () => {
    const { client } = await signedIn();
    const [primary] = await list(client);
    const sameValue = await call("PATCH", `/contact-channels/me/${primary!.id}`, client, {
      value: String(primary!.value).toUpperCase(),
    });
    expect(sameValue.body.is_verified).toBe(true);
    const changed = await call("PATCH", `/contact-channels/me/${primary!.id}`, client, {
      value: uniqueEmail(),
    });
    expect(changed.body).toMatchObject({ is_verified: false, is_primary: true, used_for_auth: true });
  });

  it("cannot touch another user's channels", async () => {
    const alice = await signedIn();
    const bob = await signedIn();
    const [aliceChannel] = await list(alice.client);
    const path = `/contact-channels/${alice.user.id}/${aliceChannel!.id}`;
    for (const [method, body] of [
      ["GET", undefined],
      ["PATCH", { value: uniqueEmail() }],
      ["DELETE", undefined],
    ] as const) {
      const response = await call(method, path, bob.client, body);
      expect(response.status, method).toBe(403);
    }
    expect((await call("GET", `/contact-channels?user_id=${alice.user.id}`, bob.client)).status).toBe(403);
    const create = await call("POST", "/contact-channels", bob.client, {
      user_id: alice.user.id,
      value: uniqueEmail(),
      type: "email",
      used_for_auth: false,
    });
    expect(create.status).toBe(403);
    // Naming Alice's channel under `me` finds nothing.
    expect((await call("GET", `/contact-channels/me/${aliceChannel!.id}`, bob.client)).status).toBe(404);
    expect((await call("DELETE", `/contact-channels/me/${aliceChannel!.id}`, bob.client)).status).toBe(404);
    expect(await list(alice.client)).toEqual([aliceChannel]);
  });

  it("needs a signed-in user for `me`", async () => {
    const response = await call("GET", "/contact-channels?user_id=me", { accessType: "client" });
    expect(response.headers.get("x-stack-known-error")).toBe("CANNOT_GET_OWN_USER_WITHOUT_USER");
    const create = await call(
      "POST",
      "/contact-channels",
      { accessType: "client" },
      {
        user_id: "me",
        value: uniqueEmail(),
        type: "email",
        used_for_auth: false,
      },
    );
    expect(create.headers.get("x-stack-known-error")).toBe("CANNOT_GET_OWN_USER_WITHOUT_USER");
  });
});

describe("contact channel CRUD for servers", () => {
  it("manages any user's channels and may set is_verified", async () => {
    const { user } = await signedIn();
    const value = uniqueEmail();
    const created = await call("POST", "/contact-channels", server_, {
      user_id: user.id,
      value,
      type: "email",
      used_for_auth: true,
      is_verified: true,
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ user_id: user.id, value, is_verified: true, used_for_auth: true });
    const path = `/contact-channels/${user.id}/${created.body.id}`;
    const renamed = await call("PATCH", path, server_, { value: uniqueEmail(), is_verified: true });
    expect(renamed.body.is_verified).toBe(true);
    const unverified = await call("PATCH", path, server_, { is_verified: false });
    expect(unverified.body.is_verified).toBe(false);

    const filtered = await call(
      "GET",
      `/contact-channels?user_id=${user.id}&contact_channel_id=${created.body.id}`,
      server_,
    );
    expect(filtered.body).toEqual({ items: [unverified.body], is_paginated: false });
    expect((await call("DELETE", path, server_)).body).toEqual({ success: true });
  });

  it("answers unknown users and channels with clear errors", async () => {
    const missing = "7d1f6c2e-0b3a-4e5f-8a9b-0c1d2e3f4a5b";
    const create = await call("POST", "/contact-channels", server_, {
      user_id: missing,
      value: uniqueEmail(),
      type: "email",
      used_for_auth: false,
    });
    expect(create.status).toBe(400);
    expect(create.body).toMatchObject({ code: "USER_ID_DOES_NOT_EXIST", details: { user_id: missing } });
    for (const userId of [missing, "not-a-uuid"]) {
      const listed = await call("GET", `/contact-channels?user_id=${userId}`, server_);
      expect(listed.status).toBe(404);
      expect(listed.headers.get("x-stack-known-error")).toBe("USER_NOT_FOUND");
    }
    const { user } = await signedIn();
    for (const channelId of [missing, "not-a-uuid"]) {
      expect((await call("GET", `/contact-channels/${user.id}/${channelId}`, server_)).status).toBe(404);
      expect((await call("PATCH", `/contact-channels/${user.id}/${channelId}`, server_, {})).status).toBe(
        404,
      );
      expect((await call("DELETE", `/contact-channels/not-a-uuid/${channelId}`, server_)).status).toBe(404);
    }
  });

  it("never reaches another project's channels", async () => {
    const other = await server.createProject("Other channels");
    const { user } = await signedIn();
    const [channel] = await list({ accessType: "server" }, user.id);
    const foreign: Caller = { accessType: "server", project: other };
    const path = `/contact-channels/${user.id}/${channel!.id}`;
    expect((await call("GET", path, foreign)).status).toBe(404);
    expect((await call("PATCH", path, foreign, { value: uniqueEmail() })).status).toBe(404);
    expect((await call("DELETE", path, foreign)).status).toBe(404);
    expect(
      (await call("GET", `/contact-channels?user_id=${user.id}`, foreign)).headers.get("x-stack-known-error"),
    ).toBe("USER_NOT_FOUND");
    const create = await call("POST", "/contact-channels", foreign, {
      user_id: user.id,
      value: uniqueEmail(),
      type: "email",
      used_for_auth: false,
    });
    expect(create.headers.get("x-stack-known-error")).toBe("USER_ID_DOES_NOT_EXIST");
    expect(await list({ accessType: "server" }, user.id)).toEqual([channel]);

    // Sign-in addresses are unique per project, not across projects.
    const { user: otherUser } = await createSignedInUser(server, other.id);
    const sameAddress = await call("POST", "/contact-channels", foreign, {
      user_id: otherUser.id,
      value: channel!.value,
      type: "email",
      used_for_auth: true,
    });
    expect(sameAddress.status).toBe(201);
  });
});
