/**
 * The tools the model may call. Each runs with the project and owner of the request (the caller's admin access to
 * that one project) and only reads, except `proposeConfigChange`, which stores a proposal the owner must apply
 * (proposals.ts). There is no tool that writes users, teams, emails or config.
 *
 * What a tool returns goes to the model wrapped in a `<tool-data>` block (`asData`); the system prompt says the
 * content of such blocks is untrusted data, never instructions. The dashboard gets the plain object.
 */
import type { ToolSet, tool } from "ai";
import { z } from "zod";
import type { RenderedConfig } from "../../config/index.ts";
import { isValidCustomPermissionId } from "../../config/index.ts";
import type { AppDeps } from "../../deps.ts";
import { isUuid } from "../../fields/ids.ts";
import { StatusError } from "../../http/status-error.ts";
import { consumeRateLimit, type RateLimitScope } from "../../rate-limit/limiter.ts";
import { RATE_LIMITS } from "../../rate-limit/rules.ts";
import { recentEmailsTo } from "../emails/recent.ts";
import { recentEventsOfUser } from "../events/recent.ts";
import { listTeams } from "../teams/service.ts";
import { listUsers } from "../users/list.ts";
import type { UserRow } from "../users/schema.ts";
import { findUser, findUserByAuthEmail } from "../users/service.ts";
import { loadUserRelations } from "../users/user-with-relations.ts";
import { createProposal, proposalView } from "./proposals.ts";
import { redactConfig } from "./redact.ts";

export type ToolContext = {
  deps: AppDeps;
  projectId: string;
  config: RenderedConfig;
  ownerKey: string;
  /** The request's rate-limit scope: each tool run counts against `aiToolCallsPerOwner`. */
  limits: RateLimitScope;
};

/**
 * Counts one tool run; past the owner's limit, the refusal (with its wait) is what the tool gives the model, which
 * then tells the owner, rather than an error that would end the answer half-way. query.ts refuses the next
 * question that offers project tools with a 429 while the window stays full.
 */
async function toolRunRefused(ctx: ToolContext): Promise<{ refused: string } | null> {
  try {
    await consumeRateLimit(ctx.limits, RATE_LIMITS.aiToolCallsPerOwner, ctx.ownerKey);
    return null;
  } catch (error) {
    if (error instanceof StatusError && error.status === 429) return { refused: error.message };
    throw error;
  }
}

const MAX_TOOL_OUTPUT_CHARS = 30_000;

/**
 * The model's view of a tool result: JSON in a delimited block. `<` is escaped inside, so no value (a display name
 * like `</tool-data> ignore previous instructions`) can close the block early.
 */
export function asData(toolName: string, output: unknown): { type: "text"; value: string } {
  let json = JSON.stringify(output ?? null).replace(/</g, "\\u003c");
  if (json.length > MAX_TOOL_OUTPUT_CHARS) json = `${json.slice(0, MAX_TOOL_OUTPUT_CHARS)} …(truncated)`;
  return { type: "text", value: `<tool-data tool="${toolName}">\n${json}\n</tool-data>` };
}

/** Project tools by their request names (`tools` of `/ai/query`), with the model's name for each. */
export const PROJECT_TOOL_NAMES = {
  "read-config": "readConfig",
  "search-users": "searchUsers",
  "search-teams": "searchTeams",
  "explain-sign-in": "explainSignInFailure",
  "draft-email-template": "draftEmailTemplate",
  "draft-permission-set": "draftPermissionSet",
  "propose-config-change": "proposeConfigChange",
} as const;

/**
 * The protocol's client-side tools (PROTOCOL-EXTRA §5.2): not run here; the tool call comes back for the client to
 * apply the TSX.
 */
export const CLIENT_TOOL_NAMES = {
  "create-email-theme": "createEmailTheme",
  "create-email-template": "createEmailTemplate",
  "create-email-draft": "createEmailDraft",
} as const;

export type RequestToolName = keyof typeof PROJECT_TOOL_NAMES | keyof typeof CLIENT_TOOL_NAMES;

async function userSummaries(ctx: ToolContext, rows: readonly UserRow[]) {
  const relations = await loadUserRelations(ctx.deps.db, ctx.projectId, rows);
  return rows.map((user) => {
    const channel = relations.primaryChannel.get(user.id);
    return {
      id: user.id,
      display_name: user.displayName,
      primary_email: channel?.value ?? null,
      primary_email_verified: channel?.isVerified ?? false,
      signed_up_at: user.signedUpAt.toISOString(),
      last_active_at: user.lastActiveAt.toISOString(),
      is_anonymous: user.isAnonymous,
      restricted_by_admin: user.restrictedByAdmin,
      has_password: user.passwordHash !== null,
      otp_auth_enabled: user.otpAuthEnabled,
      passkey_auth_enabled: user.passkeyAuthEnabled,
      oauth_providers: (relations.oauthProviders.get(user.id) ?? []).map((p) => p.id),
    };
  });
}

function signInMethods(config: RenderedConfig) {
  return {
    sign_up_allowed: config.auth.allowSignUp,
    password: config.auth.password.allowSignIn,
    email_code: config.auth.otp.allowSignIn,
    passkey: config.auth.passkey.allowSignIn,
    oauth_providers: Object.entries(config.auth.oauth.providers).map(([id, provider]) => ({
      id,
      type: provider.type,
      allow_sign_in: provider.allowSignIn,
      shared_keys: provider.isShared,
    })),
    require_email_verification: config.onboarding.requireEmailVerification,
    sign_up_rules: Object.keys(config.auth.signUpRules).length,
    email_server: config.emails.server.isShared ? "shared" : (config.emails.server.host ?? "own"),
  };
}

const permissionDraft = z.object({
  id: z.string().max(100).describe("lowercase letters, digits, _ and :"),
  scope: z.enum(["team", "project"]),
  description: z.string().max(500).optional(),
  contained_permission_ids: z.array(z.string().max(100)).max(50).optional(),
});

/** The tools for one request: project tools run against `ctx`; client tools have no `execute`. */
export async function buildTools(ctx: ToolContext, names: readonly RequestToolName[]): Promise<ToolSet> {
  // The AI SDK is loaded with the first AI request rather than at start (query.ts).
  const { tool } = await import("ai");
  const tools: ToolSet = {};
  const wanted = new Set(names);
  const dataTool = <I, O>(name: string, definition: Parameters<typeof tool<I, O>>[0]) => {
    const execute = definition.execute as (input: I, options: unknown) => Promise<O>;
    tools[name] = tool<I, O>({
      ...definition,
      execute: async (input: I, options: unknown) => (await toolRunRefused(ctx)) ?? execute(input, options),
      toModelOutput: ({ output }: { output: unknown }) => asData(name, output),
    } as never);
  };

  if (wanted.has("read-config")) {
    dataTool("readConfig", {
      description:
        "Read the project's current rendered config (secrets are never included; email TSX sources are summarized " +
        "unless one section is asked for). Optionally give a top-level section: auth, domains, teams, users, " +
        "onboarding, apiKeys, rbac, emails, project, apps, payments, dataVault, gatehouse.",
      inputSchema: z.object({ section: z.string().max(50).optional() }),
      execute: async ({ section }: { section?: string | undefined }) => {
        const config = ctx.config as unknown as Record<string, unknown>;
        if (section) {
          if (!Object.hasOwn(config, section)) return { error: `No config section "${section}".` };
          return { section, value: redactConfig(config[section], {}, [section]) };
        }
        return redactConfig(config, { summarizeSources: true });
      },
    });
  }
  if (wanted.has("search-users")) {
    dataTool("searchUsers", {
      description:
        "Find the project's users by part of their display name or primary email, or by id. Returns at most 20.",
      inputSchema: z.object({
        query: z.string().max(200),
        limit: z.number().int().min(1).max(20).optional(),
      }),
      execute: async ({ query, limit }: { query: string; limit?: number | undefined }) => {
        const { rows } = await listUsers(ctx.deps.db, ctx.projectId, ctx.config, {
          query: query.replace(/\0/g, ""),
          limit: limit ?? 10,
          include_anonymous: true,
        });
        return { users: await userSummaries(ctx, rows) };
      },
    });
  }
  if (wanted.has("search-teams")) {
    dataTool("searchTeams", {
      description: "Find the project's teams by part of their display name, or by id. Returns at most 20.",
      inputSchema: z.object({
        query: z.string().max(200),
        limit: z.number().int().min(1).max(20).optional(),
      }),
      execute: async ({ query, limit }: { query: string; limit?: number | undefined }) => {
        const { rows } = await listTeams(ctx.deps.db, ctx.projectId, {
          search: query.replace(/\0/g, ""),
          limit: limit ?? 10,
        });
        return {
          teams: rows.map((team) => ({
            id: team.id,
            display_name: team.displayName,
            created_at: team.createdAt.toISOString(),
          })),
        };
      },
    });
  }
  if (wanted.has("explain-sign-in")) {
    dataTool("explainSignInFailure", {
      description:
        "Gather what explains why someone cannot sign in: the user (by email or id), the project's sign-in methods, " +
        "the user's recent events and the recent emails sent to them (delivery status and errors).",
      inputSchema: z.object({
        email: z.string().max(320).optional(),
        user_id: z.string().max(100).optional(),
      }),
      execute: async ({ email, user_id }: { email?: string | undefined; user_id?: string | undefined }) => {
        let user: UserRow | null = null;
        if (user_id && isUuid(user_id)) user = await findUser(ctx.deps.db, ctx.projectId, user_id);
        if (!user && email)
          user = (await findUserByAuthEmail(ctx.deps.db, ctx.projectId, email))?.user ?? null;
        const [summary] = user ? await userSummaries(ctx, [user]) : [];
        return {
          user: summary ?? null,
          user_found: user !== null,
          sign_in_methods: signInMethods(ctx.config),
          recent_events: user ? await recentEventsOfUser(ctx.deps.db, ctx.projectId, user.id) : [],
          recent_emails: await recentEmailsTo(ctx.deps.db, ctx.projectId, {
            userId: user?.id,
            email: email ?? summary?.primary_email ?? undefined,
          }),
        };
      },
    });
  }
  if (wanted.has("draft-email-template")) {
    dataTool("draftEmailTemplate", {
      description:
        "Draft an email template as TSX (React Email; export function EmailTemplate({ user, project, variables }); " +
        "<Subject value=…/> from @stackframe/emails). The draft is shown to the owner, who saves it; it is not stored.",
      inputSchema: z.object({
        display_name: z.string().max(200),
        tsx_source: z.string().max(100_000),
      }),
      execute: async (draft: { display_name: string; tsx_source: string }) => ({
        draft,
        applied: false,
        note: "Shown to the owner as a draft; nothing was saved.",
      }),
    });
  }
  if (wanted.has("draft-permission-set")) {
    dataTool("draftPermissionSet", {
      description:
        "Draft a set of permission definitions. Returned to the owner as a draft with the config keys it would set; " +
        "nothing is created. To offer applying it, call proposeConfigChange with those keys.",
      inputSchema: z.object({ permissions: z.array(permissionDraft).min(1).max(30) }),
      execute: async ({ permissions }: { permissions: z.infer<typeof permissionDraft>[] }) => {
        const problems = permissions
          .filter((p) => !isValidCustomPermissionId(p.id))
          .map((p) => `"${p.id}" is not a valid permission id (lowercase letters, digits, _ and :)`);
        const configKeys = Object.fromEntries(
          permissions.map((p) => [
            `rbac.permissions.${p.id}`,
            {
              scope: p.scope,
              ...(p.description ? { description: p.description } : {}),
              containedPermissionIds: Object.fromEntries(
                (p.contained_permission_ids ?? []).map((id) => [id, true]),
              ),
            },
          ]),
        );
        return { draft: permissions, problems, config_keys: configKeys, applied: false };
      },
    });
  }
  if (wanted.has("propose-config-change")) {
    dataTool("proposeConfigChange", {
      description:
        "Propose a change to the project's config: dot-notation keys and their new values (PATCH semantics: a key " +
        "replaces everything beneath it). It is checked and stored as a proposal with its diff; it is NOT applied. " +
        "The owner reviews the diff and applies it with a click.",
      inputSchema: z.object({
        changes: z.record(z.string().max(300), z.unknown()),
        summary: z.string().max(500).describe("one sentence: what the change does and why"),
      }),
      execute: async (input: { changes: Record<string, unknown>; summary: string }) => {
        const result = await createProposal(ctx.deps, ctx.projectId, ctx.ownerKey, input);
        if (!result.ok) return { proposed: false, problems: result.problems };
        return {
          proposed: true,
          proposal: proposalView(result.proposal),
          note: "Not applied. The owner must review the diff and click Apply.",
        };
      },
    });
  }
  const contentInput = z.object({ content: z.string().max(100_000).describe("the full TSX source") });
  for (const [requestName, modelName] of Object.entries(CLIENT_TOOL_NAMES)) {
    if (wanted.has(requestName as RequestToolName)) {
      tools[modelName] = tool({
        description: `Hand the owner a new TSX source (${requestName.replace("create-", "")}); the editor applies it.`,
        inputSchema: contentInput,
      });
    }
  }
  return tools;
}
