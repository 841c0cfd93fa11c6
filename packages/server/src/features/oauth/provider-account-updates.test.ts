/**
 * `/oauth-providers` as PROTOCOL-EXTRA §8.8 has it: the server's project-wide list, PATCH with `account_id` and
 * `email`, and the rules that keep one sign-in account per provider type and user.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
import { expectKnownError, expectPlainError, uniqueEmail } from "../../testing/known-errors.ts";
import { createSignedInUser } from "../../testing/users.ts";
import { signInWithDevProvider } from "./test-support.ts";

let server: TestServer;
let project: TestProject;

beforeAll(async () => {
  server = await createTestServer();
  project = await server.createProject("OAuth provider updates");
  await project.configure({ "auth.oauth.providers.github": { isShared: true } });
});
afterAll(() => server.close());

const api = (method: string, path: string, headers: Record<string, string>, body?: unknown) =>
  server.request(`/api/v1${path}`, { method, headers, ...(body === undefined ? {} : { body }) });

const SIGN_IN_TWICE = "The same provider type with sign-in enabled already exists for this user.";
const SAME_ACCOUNT_ID = "The same provider type with the same account ID already exists for this user.";

/** A user of the project signed in through the dev provider, with their one linked account. */
async function oauthUser(target: TestProject = project) {
  const email = uniqueEmail("provider");
  const { tokens } = await signInWithDevProvider(server, target, email);
  const client = target.headers("client", { "x-stack-access-token": tokens.access_token });
  const list = await api("GET", "/oauth-providers?user_id=me", client);
  expect(list.status, list.text).toBe(200);
  return { email, client, account: list.body.items[0], userId: list.body.items[0].user_id as string };
}

/** Links one more github account to a user, as a server app does. */
const link = (userId: string, accountId: string, allowSignIn: boolean) =>
  api("POST", "/oauth-providers", project.headers("server"), {
    user_id: userId,
    provider_config_id: "github",
    account_id: accountId,
    email: accountId,
    allow_sign_in: allowSignIn,
    allow_connected_accounts: true,
  });

describe("GET /oauth-providers without user_id", () => {
  it("gives a server every account of the project, oldest first, and refuses a client", async () => {
    const listed = await server.createProject("Every account");
    await listed.configure({ "auth.oauth.providers.github": { isShared: true } });
    const first = await oauthUser(listed);
    const second = await oauthUser(listed);
    const all = await api("GET", "/oauth-providers", listed.headers("server"));
    expect(all.status, all.text).toBe(200);
    expect(all.body).toEqual({
      items: [
        { ...first.account, account_id: first.email },
        { ...second.account, account_id: second.email },
      ],
      is_paginated: false,
    });
    expectPlainError(
      await api("GET", "/oauth-providers", first.client),
      403,
      "Client can only list OAuth providers for their own user.",
    );
  });
});

describe("PATCH /oauth-providers/{user}/{id}", () => {
  it("lets a server change the account id and email; sign-in then goes by the new id", async () => {
    const user = await oauthUser();
    const newId = uniqueEmail("renamed");
    const patched = await api(
      "PATCH",
      `/oauth-providers/${user.userId}/${user.account.id}`,
      project.headers("server"),
      { account_id: newId, email: newId },
    );
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body).toEqual({ ...user.account, email: newId, account_id: newId });
    const { tokens } = await signInWithDevProvider(server, project, newId);
    expect(tokens.is_new_user).toBe(false);
    const me = await api(
      "GET",
      "/users/me",
      project.headers("client", { "x-stack-access-token": tokens.access_token }),
    );
    expect(me.body.id).toBe(user.userId);
  });

  it("keeps account_id and email server-only, and a client to its own user", async () => {
    const user = await oauthUser();
    const other = await oauthUser();
    expectKnownError(
      await api("PATCH", `/oauth-providers/me/${user.account.id}`, user.client, { email: "x@example.com" }),
      400,
      "SCHEMA_ERROR",
    );
    expectPlainError(
      await api("PATCH", `/oauth-providers/${other.userId}/${other.account.id}`, user.client, {
        allow_sign_in: false,
      }),
      403,
      "Client can only update OAuth providers for their own user.",
    );
    const unknown = randomUUID();
    expectPlainError(
      await api("PATCH", `/oauth-providers/me/${unknown}`, user.client, { allow_sign_in: false }),
      404,
      `OAuth provider ${unknown} for user ${user.userId} not found`,
    );
    expectPlainError(
      await api("PATCH", `/oauth-providers/${user.userId}/${other.account.id}`, project.headers("server"), {
        allow_sign_in: false,
      }),
      404,
      `OAuth provider ${other.account.id} for user ${user.userId} not found`,
    );
    expectKnownError(
      await api("PATCH", `/oauth-providers/${randomUUID()}/${user.account.id}`, project.headers("server"), {
        email: "x@example.com",
      }),
      404,
      "USER_NOT_FOUND",
    );
  });

  it("refuses an account id that signs another user in, or that another user holds", async () => {
    const user = await oauthUser();
    const other = await oauthUser();
    // As the official SDK's KnownErrors.OAuthProviderAccountIdAlreadyUsedForSignIn reads it: code, status, text.
    const usedForSignIn = await api(
      "PATCH",
      `/oauth-providers/${user.userId}/${user.account.id}`,
      project.headers("server"),
      { account_id: other.email },
    );
    expectKnownError(usedForSignIn, 400, "OAUTH_PROVIDER_ACCOUNT_ID_ALREADY_USED_FOR_SIGN_IN", null);
    expectKnownError(
      await link(user.userId, other.email, false),
      400,
      "OAUTH_PROVIDER_ACCOUNT_ID_ALREADY_USED_FOR_SIGN_IN",
    );
    // Held by the other user for connected accounts only: still one user's (README: deliberate differences).
    const off = await api("PATCH", `/oauth-providers/me/${other.account.id}`, other.client, {
      allow_sign_in: false,
    });
    expect(off.status, off.text).toBe(200);
    expectKnownError(
      await link(user.userId, other.email, false),
      409,
      "OAUTH_CONNECTION_ALREADY_CONNECTED_TO_ANOTHER_USER",
    );
  });
});

describe("GET and DELETE /oauth-providers/{user}/{id}", () => {
  it("answer the reference's texts for another user's account and an unknown one", async () => {
    const user = await oauthUser();
    const other = await oauthUser();
    for (const [method, verb] of [
      ["GET", "read"],
      ["DELETE", "delete"],
    ] as const) {
      expectPlainError(
        await api(method, `/oauth-providers/${other.userId}/${other.account.id}`, user.client),
        403,
        `Client can only ${verb} OAuth providers for their own user.`,
      );
      const unknown = randomUUID();
      expectPlainError(
        await api(method, `/oauth-providers/me/${unknown}`, user.client),
        404,
        `OAuth provider ${unknown} for user ${user.userId} not found`,
      );
      expectPlainError(
        await api(method, `/oauth-providers/${user.userId}/${other.account.id}`, project.headers("server")),
        404,
        `OAuth provider ${other.account.id} for user ${user.userId} not found`,
      );
      expectKnownError(
        await api(method, `/oauth-providers/${randomUUID()}/${user.account.id}`, project.headers("server")),
        404,
        "USER_NOT_FOUND",
      );
      expectKnownError(
        await api(method, `/oauth-providers/me/${user.account.id}`, project.headers("client")),
        400,
        "CANNOT_GET_OWN_USER_WITHOUT_USER",
      );
    }
    const read = await api("GET", `/oauth-providers/me/${user.account.id}`, user.client);
    expect(read.status, read.text).toBe(200);
    expect(read.body).toEqual(user.account);
  });
});

describe("one sign-in account per provider type and user", () => {
  it("refuses a second sign-in-enabled account of one provider, on create and on update", async () => {
    const user = await oauthUser();
    expectPlainError(await link(user.userId, uniqueEmail("second"), true), 400, SIGN_IN_TWICE);

    const secondId = uniqueEmail("second");
    const second = await link(user.userId, secondId, false);
    expect(second.status, second.text).toBe(201);
    expect(second.body).toMatchObject({ account_id: secondId, allow_sign_in: false });
    expectPlainError(
      await api("PATCH", `/oauth-providers/me/${second.body.id}`, user.client, { allow_sign_in: true }),
      400,
      SIGN_IN_TWICE,
    );

    // Once the first stops signing in, the second may.
    const off = await api("PATCH", `/oauth-providers/me/${user.account.id}`, user.client, {
      allow_sign_in: false,
    });
    expect(off.status, off.text).toBe(200);
    const on = await api("PATCH", `/oauth-providers/me/${second.body.id}`, user.client, {
      allow_sign_in: true,
    });
    expect(on.status, on.text).toBe(200);
    expect(on.body).toMatchObject({ id: second.body.id, allow_sign_in: true });
    // Re-enabling an account that is already on is no conflict with itself.
    const again = await api("PATCH", `/oauth-providers/me/${second.body.id}`, user.client, {
      allow_sign_in: true,
    });
    expect(again.status, again.text).toBe(200);
  });

  it("refuses the same account id twice for one user and provider", async () => {
    const user = await oauthUser();
    expectPlainError(await link(user.userId, user.email, false), 400, SAME_ACCOUNT_ID);
    const second = await link(user.userId, uniqueEmail("second"), false);
    expect(second.status, second.text).toBe(201);
    expectPlainError(
      await api("PATCH", `/oauth-providers/${user.userId}/${second.body.id}`, project.headers("server"), {
        account_id: user.email,
      }),
      400,
      SAME_ACCOUNT_ID,
    );
  });

  it("lets different users each sign in with their own account of one provider", async () => {
    const target = await createSignedInUser(server, project.id);
    const linked = await link(target.user.id, uniqueEmail("own"), true);
    expect(linked.status, linked.text).toBe(201);
  });
});
