/**
 * No N+1: a list (or an object with a list inside) costs the same number of SQL statements with 2 more items as with
 * 12 more. Each case grows one kind of item through the API and reads it back; the statements are counted with
 * `statementsSentBy`, after one warm-up read so that the project cache is as full as in a running server.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_CATALOGUE } from "../features/payments/test-support.ts";
import { createTestServer, type TestProject, type TestServer } from "../testing/harness.ts";
import { statementsSentBy } from "../testing/statements.ts";
import { createSignedInUser } from "../testing/users.ts";
import type { AccessType } from "./access-type.ts";

let server: TestServer;
let project: TestProject;
let userId: string;
let teamId: string;
/** A second user, for reads of a whole user object (the lists above are all grown on `userId`). */
let readerId: string;
/** The endpoint whose deliveries are listed (the endpoint list itself is grown by another case). */
let endpointId: string;

/** The project's keys of one access type, or a dashboard owner signed in to the internal project. */
type Caller = AccessType | "owner";
let ownerAccessToken: string;
let ownerTeamId: string;

async function call(caller: Caller, method: string, path: string, body?: unknown) {
  const headers =
    caller === "owner"
      ? server.internal.headers("client", { "x-stack-access-token": ownerAccessToken })
      : project.headers(caller);
  return server.request(`/api/v1${path}`, { method, headers, body });
}

async function created(caller: Caller, path: string, body: unknown) {
  const response = await call(caller, "POST", path, body);
  expect(response.status, `POST ${path}: ${response.text}`).toBeLessThan(300);
  return response.body;
}

/** The statements one read sends, after a warm-up read of the same path. */
async function statementsOfRead(caller: Caller, path: string): Promise<string[]> {
  const warm = await call(caller, "GET", path);
  expect(warm.status, `GET ${path}: ${warm.text}`).toBe(200);
  const { result, statements } = await statementsSentBy(() => call(caller, "GET", path));
  expect(result.status, `GET ${path}: ${result.text}`).toBe(200);
  return statements;
}

type Case = {
  name: string;
  caller: Caller;
  path: () => string;
  /** Adds the `index`th item of what the read lists. */
  add: (index: number) => Promise<unknown>;
  /** How many items the read shows, to check the growth really reached it. */
  itemCount: (body: any) => number;
};

const items = (body: any) => body.items.length;
let sequence = 0;
const newUser = () =>
  created("server", "/users", {
    primary_email: `user-${++sequence}@statements.example`,
    primary_email_auth_enabled: true,
    display_name: `User ${sequence}`,
  });

const oauthAccount = (index: number, owner = userId) => ({
  user_id: owner,
  provider_config_id: "github",
  account_id: `github-account-${index}`,
  email: `github-${index}@statements.example`,
  allow_sign_in: false,
  allow_connected_accounts: true,
});

const cases: Case[] = [
  { name: "users", caller: "server", path: () => "/users", add: newUser, itemCount: items },
  {
    name: "teams of a user",
    caller: "server",
    path: () => `/teams?user_id=${userId}`,
    add: (index) => created("server", "/teams", { display_name: `Team ${index}`, creator_user_id: userId }),
    itemCount: items,
  },
  {
    name: "member profiles of a team",
    caller: "server",
    path: () => `/team-member-profiles?team_id=${teamId}`,
    add: async () => {
      const user = await newUser();
      return created("server", `/team-memberships/${teamId}/${user.id}`, {});
    },
    itemCount: items,
  },
  {
    name: "contact channels of a user",
    caller: "server",
    path: () => `/contact-channels?user_id=${userId}`,
    add: (index) =>
      created("server", "/contact-channels", {
        user_id: userId,
        type: "email",
        value: `channel-${index}@statements.example`,
        used_for_auth: false,
      }),
    itemCount: items,
  },
  {
    name: "sessions of a user",
    caller: "server",
    path: () => `/auth/sessions?user_id=${userId}`,
    add: () => created("server", "/auth/sessions", { user_id: userId }),
    itemCount: items,
  },
  {
    name: "API keys of a user",
    caller: "server",
    path: () => `/user-api-keys?user_id=${userId}`,
    add: (index) => created("server", "/user-api-keys", { user_id: userId, description: `key ${index}` }),
    itemCount: items,
  },
  {
    name: "API keys of a team",
    caller: "server",
    path: () => `/team-api-keys?team_id=${teamId}`,
    add: (index) => created("server", "/team-api-keys", { team_id: teamId, description: `key ${index}` }),
    itemCount: items,
  },
  {
    name: "project permissions of a user",
    caller: "server",
    path: () => `/project-permissions?user_id=${userId}`,
    add: async (index) => {
      await created("admin", "/project-permission-definitions", { id: `project_permission_${index}` });
      return created("server", `/project-permissions/${userId}/project_permission_${index}`, {});
    },
    itemCount: items,
  },
  {
    name: "team permissions of a member",
    caller: "server",
    path: () => `/team-permissions?team_id=${teamId}&user_id=${userId}`,
    add: async (index) => {
      await created("admin", "/team-permission-definitions", { id: `team_permission_${index}` });
      return created("server", `/team-permissions/${teamId}/${userId}/team_permission_${index}`, {});
    },
    itemCount: items,
  },
  {
    name: "OAuth accounts of a user",
    caller: "server",
    path: () => `/oauth-providers?user_id=${userId}`,
    add: (index) => created("server", "/oauth-providers", oauthAccount(index)),
    itemCount: items,
  },
  {
    // The user object carries the accounts too (`oauth_providers`), read in the same statement as the user.
    name: "a user with their OAuth accounts",
    caller: "server",
    path: () => `/users/${readerId}`,
    add: (index) => created("server", "/oauth-providers", oauthAccount(100 + index, readerId)),
    itemCount: (body) => body.oauth_providers.length,
  },
  {
    name: "invitations of a team",
    caller: "server",
    path: () => `/team-invitations?team_id=${teamId}`,
    add: (index) =>
      created("server", "/team-invitations/send-code", {
        team_id: teamId,
        email: `invitee-${index}@statements.example`,
        callback_url: "http://localhost:3000/handler/team-invitation",
      }),
    itemCount: items,
  },
  {
    name: "sent emails",
    caller: "admin",
    path: () => "/internal/emails",
    add: (index) =>
      created("server", "/emails/send-email", { user_ids: [userId], html: `<p>Email ${index}</p>` }),
    itemCount: items,
  },
  {
    name: "email drafts",
    caller: "admin",
    path: () => "/internal/email-drafts",
    add: (index) => created("admin", "/internal/email-drafts", { display_name: `Draft ${index}` }),
    itemCount: (body) => body.drafts.length,
  },
  {
    name: "webhook endpoints",
    caller: "admin",
    path: () => "/webhooks-portal/endpoints",
    add: (index) =>
      created("admin", "/webhooks-portal/endpoints", {
        url: `http://localhost:9/hook-${index}`,
        description: "",
      }),
    itemCount: items,
  },
  {
    // Each delivery is listed with its attempts.
    name: "deliveries of a webhook endpoint",
    caller: "admin",
    path: () => `/webhooks-portal/endpoints/${endpointId}/deliveries`,
    add: () => created("admin", `/webhooks-portal/endpoints/${endpointId}/test`, {}),
    itemCount: items,
  },
  {
    name: "AI conversations",
    caller: "admin",
    path: () => "/internal/ai-conversations",
    add: (index) =>
      created("admin", "/internal/ai-conversations", {
        title: `Conversation ${index}`,
        messages: [{ role: "user", content: `Question ${index}` }],
      }),
    itemCount: (body) => body.conversations.length,
  },
  {
    name: "payment transactions",
    caller: "admin",
    path: () => "/internal/payments/transactions",
    add: (index) =>
      index % 2 === 0
        ? created("server", `/payments/items/user/${userId}/credits/update-quantity?allow_negative=false`, {
            delta: 1,
          })
        : created("server", `/payments/products/user/${userId}`, { product_id: "credit-pack" }),
    itemCount: (body) => body.transactions.length,
  },
  {
    name: "products a customer holds",
    caller: "server",
    path: () => `/payments/products/user/${readerId}?limit=100`,
    add: (index) =>
      created("server", `/payments/products/user/${readerId}`, {
        product_inline: {
          display_name: `Inline product ${index}`,
          customer_type: "user",
          server_only: true,
          prices: {},
          included_items: { credits: { quantity: 1 } },
        },
      }),
    itemCount: items,
  },
  {
    name: "projects a dashboard owner manages",
    caller: "owner",
    path: () => "/internal/projects",
    add: (index) =>
      created("owner", "/internal/projects", {
        display_name: `Project ${index}`,
        owner_team_id: ownerTeamId,
      }),
    itemCount: items,
  },
  {
    name: "project key sets",
    caller: "admin",
    path: () => "/internal/api-keys",
    add: (index) =>
      created("admin", "/internal/api-keys", {
        description: `key set ${index}`,
        expires_at_millis: Date.now() + 86_400_000,
        has_publishable_client_key: true,
        has_secret_server_key: true,
        has_super_secret_admin_key: false,
      }),
    itemCount: items,
  },
];

beforeAll(async () => {
  server = await createTestServer();
  project = await server.createProject("Statement counts");
  const patched = await call("admin", "PATCH", "/internal/projects/current", {
    config: { allow_user_api_keys: true, allow_team_api_keys: true },
  });
  expect(patched.status, patched.text).toBe(200);
  await project.configure({
    "auth.oauth.providers.github": { isShared: true },
    "emails.server": { isShared: false, host: "smtp.statements.example", port: 587 },
    ...TEST_CATALOGUE,
  });
  userId = (await newUser()).id;
  readerId = (await newUser()).id;
  const owner = await createSignedInUser(server, "internal", { primaryEmail: "owner@statements.example" });
  ownerAccessToken = owner.accessToken;
  ownerTeamId = (await created("owner", "/teams", { display_name: "Owners", creator_user_id: "me" })).id;
  endpointId = (await created("admin", "/webhooks-portal/endpoints", { url: "http://localhost:9/hook" })).id;
  teamId = (await created("server", "/teams", { display_name: "Team", creator_user_id: userId })).id;
});
afterAll(() => server?.close());

describe("a read costs as many statements for 12 more items as for 2 more", () => {
  it.each(cases)("$name", async ({ caller, path, add, itemCount }) => {
    // Lists may start with items (the primary email, the creator's team, the first key set, emails other cases
    // sent): 2 and 12 are added to those.
    const initial = itemCount((await call(caller, "GET", path())).body);
    let count = initial;
    const growTo = async (target: number) => {
      while (count < target) await add(count++);
      expect(itemCount((await call(caller, "GET", path())).body)).toBe(target);
    };
    await growTo(initial + 2);
    const few = await statementsOfRead(caller, path());
    await growTo(initial + 12);
    const many = await statementsOfRead(caller, path());
    expect(few.length, "the read sent no statement that was seen").toBeGreaterThan(0);
    expect(many, `with 2 more items:\n${few.join("\n")}\n\nwith 12 more:\n${many.join("\n")}`).toHaveLength(
      few.length,
    );
  });
});
