/**
 * A tenant for the cross-cutting route tests: a project holding one object of every kind a route can name by id
 * (user, team, invitation, channel, API keys, permissions, email theme, template and draft, an email, a webhook
 * endpoint and delivery, an AI thread, conversation and proposal), and the requests that hand a tenant's ids to any
 * route of the registry, worked out from the route's parameter names. tenant-isolation.test.ts sends one tenant's ids
 * with another's keys; index-usage.test.ts sends a tenant's own, to see every statement the routes send.
 */
import { expect } from "vitest";
import type { z } from "zod";
import { createProposal } from "../features/ai/proposals.ts";
import { MARKETING_CATEGORY } from "../features/notifications/categories.ts";
import type { AccessType } from "../http/access-type.ts";
import type { AnyRoute } from "../http/route.ts";
import type { TestProject, TestServer } from "./harness.ts";
import { concretePath, objectShapes, pathParams, sampleObject, sampleValue } from "./route-inputs.ts";
import { createSignedInUser } from "./users.ts";

/** Which of a tenant's ids a parameter or field of this name stands for. */
export const ID_KINDS: Record<string, IdKind> = {
  user_id: "user",
  creator_user_id: "user",
  team_id: "team",
  selected_team_id: "team",
  owner_team_id: "team",
  new_team_id: "team",
  project_id: "project",
  contact_channel_id: "channel",
  session_id: "session",
  api_key_id: "apiKey",
  permission_id: "permission",
  theme_id: "emailTheme",
  template_id: "emailTemplate",
  templateId: "emailTemplate",
  draft_id: "emailDraft",
  endpoint_id: "webhookEndpoint",
  delivery_id: "webhookDelivery",
  // Payments customers: the samples use customer_type "user", so the customer is the tenant's user.
  customer_id: "user",
  // The AI helper (PROTOCOL-EXTRA §5): `projectId` where the protocol names the project in a body or query.
  projectId: "project",
  threadId: "aiThread",
  conversation_id: "aiConversation",
  proposal_id: "aiProposal",
};
/**
 * `/team-invitations/:id`; the other path parameters named plain `id` (the outbox's, the drafts') are told apart by
 * path in `idKey`. Body fields named `id` name new objects.
 */
const PATH_ONLY_ID_KINDS: Record<string, IdKind> = { id: "invitation" };

export type IdKind =
  | "user"
  | "team"
  | "project"
  | "channel"
  | "session"
  | "apiKey"
  | "permission"
  | "invitation"
  | "emailTheme"
  | "emailTemplate"
  | "emailDraft"
  | "webhookEndpoint"
  | "webhookDelivery"
  | "aiThread"
  | "aiConversation"
  | "aiProposal";
export type Tenant = Awaited<ReturnType<typeof createTenant>>;

/** Values of the path parameters that name no object of a tenant (config levels, providers, categories). */
export const PLAIN_VALUES: Record<string, string> = {
  level: "environment",
  provider_id: "github",
  provider_account_id: "some-account",
  notification_category_id: MARKETING_CATEGORY.id,
  customer_type: "user",
  item_id: "credits",
  product_id: "starter",
};

/** Query and body fields that look like ids but name no object of a tenant. */
export const NOT_TENANT_IDS: Record<string, string> = {
  id: "names the permission definition being created or renamed, within the caller's project",
  client_id: "OAuth client id: how the public OAuth routes name the project",
  provider_config_id: "an OAuth provider of the caller's own config",
  account_id: "the account's id at the OAuth provider",
  session_replay_segment_id: "the browser's own label for its analytics events, stored with them",
  batch_id: "the browser's own label for one batch of analytics events, stored with them",
  product_id: "a product of the caller's own payments config",
  offer_id: "the older name of product_id",
  price_id: "a price of the product a purchase code holds",
  subscription_id:
    "picks among the subscriptions of the customer in the path, whose project is checked first",
  from_product_id: "a product of the caller's own payments config",
  to_product_id: "a product of the caller's own payments config",
  setup_intent_id:
    "a SetupIntent at Stripe, read on the caller's own connected account and checked to be the customer's",
  config_id: "Stripe's payment method configuration, checked to be the caller's own connected account's",
};

export async function callAs(
  server: TestServer,
  project: TestProject,
  accessType: AccessType,
  method: string,
  path: string,
  body?: unknown,
  accessToken?: string,
) {
  const extra: Record<string, string> = accessToken ? { "x-stack-access-token": accessToken } : {};
  const response = await server.request(`/api/v1${path}`, {
    method,
    headers: project.headers(accessType, extra),
    ...(body === undefined ? {} : { body }),
  });
  return response;
}

async function created(
  server: TestServer,
  project: TestProject,
  accessType: AccessType,
  path: string,
  body: unknown,
) {
  const response = await callAs(server, project, accessType, "POST", path, body);
  expect(response.status, `${path}: ${response.text}`).toBeLessThan(300);
  return response.body;
}

/** A project with a user, a team, an invitation, a channel, API keys, permissions and a session. */
export async function createTenant(server: TestServer, name: string) {
  const project = await server.createProject(`Tenant ${name}`);
  const patched = await callAs(server, project, "admin", "PATCH", "/internal/projects/current", {
    config: { allow_user_api_keys: true, allow_team_api_keys: true, client_team_creation_enabled: true },
  });
  expect(patched.status, patched.text).toBe(200);
  const email = `member-${name}@tenant-${name}.example`;
  const signedIn = await createSignedInUser(server, project.id, {
    primaryEmail: email,
    primaryEmailVerified: true,
    displayName: `Member of ${name}`,
  });
  const user = signedIn.user.id;
  const team = await created(server, project, "server", "/teams", {
    display_name: `Team of ${name}`,
    creator_user_id: user,
  });
  const invitation = await created(server, project, "server", "/team-invitations/send-code", {
    team_id: team.id,
    email: `invitee-${name}@tenant-${name}.example`,
    callback_url: "http://localhost:3000/handler/team-invitation",
  });
  const channel = await created(server, project, "server", "/contact-channels", {
    user_id: user,
    value: `second-${name}@tenant-${name}.example`,
    type: "email",
    used_for_auth: false,
  });
  const userKey = await created(server, project, "server", "/user-api-keys", {
    user_id: user,
    description: "user key",
  });
  const teamKey = await created(server, project, "server", "/team-api-keys", {
    team_id: team.id,
    description: "team key",
  });
  const projectPermission = `tenant_${name}_project_permission`;
  const teamPermission = `tenant_${name}_team_permission`;
  await created(server, project, "admin", "/project-permission-definitions", { id: projectPermission });
  await created(server, project, "admin", "/team-permission-definitions", { id: teamPermission });
  await created(server, project, "server", `/project-permissions/${user}/${projectPermission}`, {});
  await created(server, project, "server", `/team-permissions/${team.id}/${user}/${teamPermission}`, {});
  // Email themes and templates are config entries; templates need the project's own email server.
  await project.configure({
    "emails.server": { isShared: false, host: `smtp.tenant-${name}.example`, port: 587 },
  });
  const emailTheme = await created(server, project, "admin", "/internal/email-themes", {
    display_name: `Theme of ${name}`,
  });
  const emailTemplate = await created(server, project, "admin", "/internal/email-templates", {
    display_name: `Template of ${name}`,
  });
  const emailDraft = await created(server, project, "admin", "/internal/email-drafts", {
    display_name: `Draft of ${name}`,
  });
  await created(server, project, "server", "/emails/send-email", {
    user_ids: [user],
    html: `<p>For ${name}</p>`,
  });
  const outbox = await callAs(server, project, "server", "GET", "/emails/outbox");
  // A webhook endpoint (through the portal API, with admin keys) and a delivery to it (a queued test message).
  const webhookEndpoint = await created(server, project, "admin", "/webhooks-portal/endpoints", {
    url: `http://localhost:9/tenant-${name}`,
    description: `Endpoint of ${name}`,
  });
  const webhookDelivery = await created(
    server,
    project,
    "admin",
    `/webhooks-portal/endpoints/${webhookEndpoint.id}/test`,
    {},
  );
  // The AI helper's thread, saved conversation and config proposal (made as the model's tool makes it: no model
  // is configured here).
  const aiThread = `thread-of-${name}`;
  const patchedThread = await callAs(server, project, "admin", "PATCH", `/internal/ai-chat/${aiThread}`, {
    message: { text: `Thread message of ${name}` },
  });
  expect(patchedThread.status, patchedThread.text).toBe(200);
  const aiConversation = await created(server, project, "admin", "/internal/ai-conversations", {
    title: `Conversation of ${name}`,
    messages: [{ role: "user", content: `Question of ${name}` }],
  });
  const proposal = await createProposal(server.deps, project.id, "admin-key", {
    changes: { "auth.passkey.allowSignIn": true },
    summary: `Proposal of ${name}`,
  });
  if (!proposal.ok) throw new Error(proposal.problems.join("; "));
  const sessions = await callAs(server, project, "server", "GET", `/auth/sessions?user_id=${user}`);
  const keySets = await callAs(server, project, "admin", "GET", "/internal/api-keys");
  const ids = {
    user,
    team: team.id,
    project: project.id,
    channel: channel.id,
    session: sessions.body.items[0].id,
    userApiKey: userKey.id,
    teamApiKey: teamKey.id,
    projectApiKey: keySets.body.items[0].id,
    projectPermission,
    teamPermission,
    invitation: invitation.id,
    emailTheme: emailTheme.id,
    emailTemplate: emailTemplate.id,
    emailDraft: emailDraft.id,
    email: outbox.body.items[0].id as string,
    webhookEndpoint: webhookEndpoint.id as string,
    webhookDelivery: webhookDelivery.id as string,
    aiThread,
    aiConversation: aiConversation.id as string,
    aiProposal: proposal.proposal.id,
  };
  const markers = [
    ...Object.values(ids).filter((id) => id !== project.id),
    email,
    `Team of ${name}`,
    `Thread message of ${name}`,
    `Conversation of ${name}`,
    `Proposal of ${name}`,
  ];
  return { project, accessToken: signedIn.accessToken, ids, markers };
}

/** Which of a tenant's ids a parameter or field of this name names on this route; undefined: no id. */
export function idKey(route: AnyRoute, name: string, inPath: boolean): keyof Tenant["ids"] | undefined {
  if (inPath && name === "id" && route.path.startsWith("/emails/outbox")) return "email";
  if (inPath && name === "id" && route.path.startsWith("/internal/email-drafts")) return "emailDraft";
  const kind = ID_KINDS[name] ?? (inPath ? PATH_ONLY_ID_KINDS[name] : undefined);
  if (kind === "apiKey") {
    if (route.path.startsWith("/user-api-keys")) return "userApiKey";
    if (route.path.startsWith("/team-api-keys")) return "teamApiKey";
    return "projectApiKey";
  }
  if (kind === "permission") return route.path.startsWith("/team-") ? "teamPermission" : "projectPermission";
  return kind;
}

export type Attempt = { label: string; path: string; body?: unknown };
type Names = { params: string[]; query: string[]; body: string[]; ids: string[]; optionalIds: string[] };

export function namesOf(route: AnyRoute): Names {
  const optional = new Set<string>();
  const fields = (part: "query" | "body") => {
    const schema = route.request?.[part];
    if (!schema) return [];
    const shapes = objectShapes(schema);
    for (const shape of shapes) {
      for (const [name, field] of Object.entries(shape))
        if (field.safeParse(undefined).success) optional.add(name);
    }
    return [...new Set(shapes.flatMap((shape) => Object.keys(shape)))];
  };
  const params = pathParams(route.path);
  const query = fields("query");
  const body = route.method === "GET" ? [] : fields("body");
  const ids = [
    ...params.filter((name) => idKey(route, name, true) !== undefined),
    ...[...query, ...body].filter((name) => idKey(route, name, false) !== undefined),
  ];
  const optionalIds = ids.filter((name) => optional.has(name) && !params.includes(name));
  return { params, query, body, ids, optionalIds };
}

/** A PATCH that changes nothing proves little: one optional non-id field set to a valid value. */
function someChange(schema: z.ZodType, body: Record<string, unknown>): Record<string, unknown> {
  for (const [name, field] of Object.entries(objectShapes(schema)[0] ?? {})) {
    if (name in body || name in ID_KINDS) continue;
    const value = sampleValue(field);
    if (value !== undefined && value !== null) return { [name]: value };
  }
  return {};
}

const USER_FIELDS = ["user_id", "creator_user_id"];
const TEAM_FIELDS = ["team_id", "selected_team_id", "owner_team_id", "new_team_id"];

/**
 * The requests that hand `a`'s ids to a route (with `b`, also the mixes below). Optional id fields are sent one at a time (some routes take a user or
 * a team, not both). Each request is sent with every id A's, then with its user or team ids B's own and the rest
 * still A's (a valid B user or team with A's key, session or invitation is the classic hole).
 */
export function attemptsFor(route: AnyRoute, a: Tenant, b?: Tenant): Attempt[] {
  const names = namesOf(route);
  const build = (sent: readonly string[], own: readonly string[]): Attempt => {
    const value = (name: string, inPath: boolean) => {
      const key = idKey(route, name, inPath);
      return key === undefined ? PLAIN_VALUES[name] : (own.includes(name) && b ? b : a).ids[key];
    };
    const pathValues = Object.fromEntries(names.params.map((name) => [name, value(name, true) ?? "unused"]));
    const hints: Record<string, string> = {};
    for (const name of [...names.query, ...names.body]) {
      const hint = value(name, false);
      const leftOut = names.optionalIds.includes(name) && !sent.includes(name);
      if (hint !== undefined && !leftOut) hints[name] = hint;
    }
    const sentOptional = (fields: string[]) => fields.filter((name) => sent.includes(name) && name in hints);
    const query = new URLSearchParams();
    if (route.request?.query) {
      for (const [name, sample] of Object.entries(sampleObject(route.request.query, hints))) {
        if (sample !== undefined) query.set(name, String(sample));
      }
      for (const name of sentOptional(names.query)) query.set(name, hints[name]!);
    }
    let body: Record<string, unknown> | undefined;
    if (route.method !== "GET") {
      body = route.request?.body ? sampleObject(route.request.body, hints) : {};
      for (const name of sentOptional(names.body)) body[name] = hints[name];
      if (route.method === "PATCH" && route.request?.body)
        Object.assign(body, someChange(route.request.body, body));
    }
    const search = query.toString();
    const path = `${concretePath(route.path, pathValues).slice("/api/v1".length)}${search ? `?${search}` : ""}`;
    const label = own.length === 0 ? "every id of A" : `${own.join(", ")} of B, the rest of A`;
    return { label, path, ...(body === undefined ? {} : { body }) };
  };
  const required = names.ids.filter((name) => !names.optionalIds.includes(name));
  const idSets = [
    ...(required.length > 0 || names.optionalIds.length === 0 ? [required] : []),
    ...names.optionalIds.map((name) => [...required, name]),
  ];
  const attempts: Attempt[] = [];
  for (const ids of idSets) {
    attempts.push(build(ids, []));
    if (!b) continue;
    for (const family of [USER_FIELDS, TEAM_FIELDS]) {
      const own = family.filter((name) => ids.includes(name));
      if (own.length > 0 && ids.some((name) => !family.includes(name))) attempts.push(build(ids, own));
    }
  }
  return attempts;
}
