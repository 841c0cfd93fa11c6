/** `/oauth-providers`: a user's linked provider accounts, per access level and across projects. */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
import { expectKnownError, expectPlainError, uniqueEmail } from "../../testing/known-errors.ts";
import { createSignedInUser } from "../../testing/users.ts";
import { getRenderedConfig } from "../projects/config-store.ts";
import { attachProviderAccounts } from "./accounts.ts";
import { devProviderEmail } from "./dev-provider.ts";
import { redirectError, runFlow, signInWithDevProvider } from "./test-support.ts";

let server: TestServer;
let project: TestProject;
let other: TestProject;

beforeAll(async () => {
  server = await createTestServer();
  project = await server.createProject("OAuth providers");
  other = await server.createProject("Another project");
  for (const target of [project, other]) {
    await target.configure({ "auth.oauth.providers.github": { isShared: true } });
  }
});
afterAll(() => server.close());

type Headers = Record<string, string>;
const api = (method: string, path: string, headers: Headers, body?: unknown) =>
  server.request(`/api/v1${path}`, { method, headers, ...(body === undefined ? {} : { body }) });

async function oauthUser(target: TestProject = project) {
  const email = uniqueEmail("provider");
  const { tokens } = await signInWithDevProvider(server, target, email);
  const client = target.headers("client", { "x-stack-access-token": tokens.access_token });
  const list = await api("GET", "/oauth-providers?user_id=me", client);
  expect(list.status, list.text).toBe(200);
  return { email, client, account: list.body.items[0], userId: list.body.items[0].user_id as string };
}

describe("reading", () => {
  it("shows clients their accounts without the provider account id, and servers with it", async () => {
    const user = await oauthUser();
    expect(user.account).toEqual({
      user_id: user.userId,
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      email: devProviderEmail(user.email),
      provider_config_id: "github",
      type: "github",
      allow_sign_in: true,
      allow_connected_accounts: true,
    });
    const asServer = await api("GET", `/oauth-providers?user_id=${user.userId}`, project.headers("server"));
    expect(asServer.body.items).toEqual([{ ...user.account, account_id: user.email }]);
    const one = await api("GET", `/oauth-providers/me/${user.account.id}`, user.client);
    expect(one.body).toEqual(user.account);
  });

  it("keeps users and projects apart", async () => {
    const user = await oauthUser();
    const stranger = await createSignedInUser(server, project.id);
    const strangerHeaders = project.headers("client", { "x-stack-access-token": stranger.accessToken });
    expect((await api("GET", `/oauth-providers?user_id=${user.userId}`, strangerHeaders)).status).toBe(403);
    expect((await api("GET", `/oauth-providers/me/${user.account.id}`, strangerHeaders)).status).toBe(404);
    expect(
      (await api("GET", `/oauth-providers/${user.userId}/${user.account.id}`, other.headers("server")))
        .status,
    ).toBe(404);
    for (const id of ["not-a-uuid", randomUUID()]) {
      expect((await api("GET", `/oauth-providers/me/${id}`, user.client)).status).toBe(404);
    }
    expectKnownError(
      await api("GET", `/oauth-providers?user_id=${randomUUID()}`, project.headers("server")),
      404,
      "USER_NOT_FOUND",
    );
  });
});

describe("updating and unlinking", () => {
  it("turns sign-in off for an account, after which it no longer signs in", async () => {
    const user = await oauthUser();
    const patched = await api("PATCH", `/oauth-providers/me/${user.account.id}`, user.client, {
      allow_sign_in: false,
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body).toMatchObject({ allow_sign_in: false, allow_connected_accounts: true });
    const { location } = await runFlow(server, project, user.email);
    expect(redirectError(location).code).toBe("OAUTH_CONNECTION_ALREADY_CONNECTED_TO_ANOTHER_USER");
    expectKnownError(
      await api("PATCH", `/oauth-providers/me/${user.account.id}`, user.client, { account_id: "x" }),
      400,
      "SCHEMA_ERROR",
    );
  });

  it("unlinks an account; the next sign-in with it is a new user", async () => {
    const user = await oauthUser();
    const deleted = await api("DELETE", `/oauth-providers/me/${user.account.id}`, user.client);
    expect(deleted.body).toEqual({ success: true });
    expect((await api("GET", `/oauth-providers/me/${user.account.id}`, user.client)).status).toBe(404);
    const me = await api("GET", "/users/me", user.client);
    expect(me.body.oauth_providers).toEqual([]);
    expect((await api("DELETE", `/oauth-providers/me/${user.account.id}`, user.client)).status).toBe(404);
  });
});

describe("creating (server)", () => {
  it("links an account to a user, which then signs that user in", async () => {
    const target = await createSignedInUser(server, project.id);
    const accountId = uniqueEmail("imported");
    const created = await api("POST", "/oauth-providers", project.headers("server"), {
      user_id: target.user.id,
      provider_config_id: "github",
      account_id: accountId,
      email: accountId,
      allow_sign_in: true,
      allow_connected_accounts: false,
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({
      user_id: target.user.id,
      account_id: accountId,
      allow_connected_accounts: false,
    });
    const { tokens } = await signInWithDevProvider(server, project, accountId);
    expect(tokens.is_new_user).toBe(false);
    const me = await api(
      "GET",
      "/users/me",
      project.headers("client", { "x-stack-access-token": tokens.access_token }),
    );
    expect(me.body.id).toBe(target.user.id);
  });

  it("refuses duplicates, unknown users and providers, and clients", async () => {
    const user = await oauthUser();
    const body = {
      user_id: user.userId,
      provider_config_id: "github",
      account_id: user.email,
      allow_sign_in: true,
      allow_connected_accounts: true,
    };
    const server_ = project.headers("server");
    // The user's own account again: the first rule of PROTOCOL-EXTRA §8.8 answers before the unique index would.
    expectPlainError(
      await api("POST", "/oauth-providers", server_, body),
      400,
      "The same provider type with sign-in enabled already exists for this user.",
    );
    expectKnownError(
      await api("POST", "/oauth-providers", server_, { ...body, user_id: randomUUID() }),
      400,
      "USER_ID_DOES_NOT_EXIST",
    );
    expectKnownError(
      await api("POST", "/oauth-providers", server_, {
        ...body,
        account_id: "x",
        provider_config_id: "google",
      }),
      400,
      "OAUTH_PROVIDER_NOT_FOUND_OR_NOT_ENABLED",
    );
    expectKnownError(
      await api("POST", "/oauth-providers", user.client, body),
      401,
      "INSUFFICIENT_ACCESS_TYPE",
    );
    expectKnownError(
      await api("POST", "/oauth-providers", other.headers("server"), { ...body, account_id: "y" }),
      400,
      "USER_ID_DOES_NOT_EXIST",
    );
  });
});

describe("attachProviderAccounts (for POST /users with oauth_providers)", () => {
  it("links the given accounts in one go, and refuses taken, repeated or unknown ones", async () => {
    const config = await getRenderedConfig(server.deps, project.id);
    const target = await createSignedInUser(server, project.id);
    const accountId = uniqueEmail("attached");
    const attach = (providers: { id: string; account_id: string; email?: string | null }[]) =>
      attachProviderAccounts(server.deps.db, {
        projectId: project.id,
        config,
        userId: target.user.id,
        providers,
      });
    await attach([{ id: "github", account_id: accountId, email: accountId.toUpperCase() }]);
    const listed = await api("GET", `/oauth-providers?user_id=${target.user.id}`, project.headers("server"));
    expect(listed.body.items).toMatchObject([
      { provider_config_id: "github", account_id: accountId, email: accountId },
    ]);
    await expect(attach([{ id: "github", account_id: accountId }])).rejects.toMatchObject({
      code: "OAUTH_CONNECTION_ALREADY_CONNECTED_TO_ANOTHER_USER",
    });
    const twice = { id: "github", account_id: uniqueEmail("twice") };
    await expect(attach([twice, twice])).rejects.toMatchObject({
      code: "OAUTH_CONNECTION_ALREADY_CONNECTED_TO_ANOTHER_USER",
    });
    await expect(attach([{ id: "google", account_id: "g" }])).rejects.toMatchObject({
      code: "OAUTH_PROVIDER_NOT_FOUND_OR_NOT_ENABLED",
    });
  });
});
