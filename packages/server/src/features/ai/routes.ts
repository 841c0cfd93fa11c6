/**
 * The AI helper (PROTOCOL-EXTRA §5, SPEC §7), admin only: thread storage and questions at `/internal/ai-chat/:threadId`,
 * model calls at `/ai/query/{generate,stream}`, saved conversations at `/internal/ai-conversations`, and the config
 * proposals the model made, which only the owner's own call applies (`/internal/ai-proposals`). Gatehouse takes
 * these with admin access to the project (the dashboard's admin access token, or the admin key) rather than as the
 * reference's internal-project user calls; `projectId`, where the protocol has it, must name that project.
 */
import type { WireAiProposal } from "@gatehouse/shared";
import { z } from "zod";
import { metadataProblem } from "../../fields/metadata.ts";
import { storableText } from "../../fields/text.ts";
import { defineRoute, routeGroup } from "../../http/route.ts";
import { StatusError } from "../../http/status-error.ts";
import { wire } from "../../http/wire-schema.ts";
import { SYSTEM_PROMPT_NAMES, type SystemPromptName } from "./prompts.ts";
import { decideProposal, listProposals, proposalOr404, proposalView } from "./proposals.ts";
import { generateAnswer, parseToolNames, streamAnswer, toModelMessages } from "./query.ts";
import {
  appendThreadMessage,
  conversationOr404,
  createConversation,
  deleteConversation,
  listConversations,
  ownerKeyOf,
  threadMessages,
  updateConversation,
  usageTotals,
} from "./service.ts";
import type { RequestToolName } from "./tools.ts";

const tags = ["AI helper"];
const admin = routeGroup({ tags, access: ["admin"] });

/** Any JSON value but null, within the metadata limits (100 KB, 64 levels, storable text). */
const jsonValue = z.unknown().superRefine((value, ctx) => {
  const problem =
    value === undefined || value === null ? "is required (any JSON value but null)" : metadataProblem(value);
  if (problem) ctx.addIssue({ code: "custom", message: problem });
});

const threadParams = z.strictObject({ threadId: storableText(200).min(1) });
const conversationParams = z.strictObject({ conversation_id: z.string().max(100) });
const proposalParams = z.strictObject({ proposal_id: z.string().max(100) });

const chatMessage = z.object({
  role: z.enum(["user", "assistant", "tool"]),
  content: jsonValue,
});
const chatMessages = z.array(chatMessage).min(1).max(200);

const contentBlock = z.union([
  z.object({ type: z.literal("text"), text: z.string() }),
  z.object({
    type: z.literal("tool-call"),
    toolName: z.string(),
    toolCallId: z.string(),
    args: z.unknown(),
    argsText: z.string(),
    result: z.unknown(),
  }),
]);

const queryBody = z.strictObject({
  quality: z.enum(["dumb", "smart", "smartest"]).optional(),
  speed: z.enum(["slow", "fast"]).optional(),
  systemPrompt: z.enum(SYSTEM_PROMPT_NAMES),
  tools: z.array(z.string().max(100)).max(20),
  messages: chatMessages,
  projectId: z.string().max(100).optional(),
  mcpCallMetadata: z
    .strictObject({
      toolName: z.string().max(200),
      reason: z.string().max(2000),
      userPrompt: z.string().max(20_000),
      conversationId: z.string().max(100).optional(),
    })
    .optional(),
});

/** Where the protocol names a project, it must be the caller's (a plain 403, as the reference answers). */
function checkProjectId(auth: { project: { id: string } }, projectId: string | undefined) {
  if (projectId !== undefined && projectId !== auth.project.id) {
    throw new StatusError(403, "projectId must be the project these credentials are for.");
  }
}

/** `context_type` of `POST /internal/ai-chat/:threadId`: the email editors' three, and the project helper. */
const CONTEXTS: Record<string, { systemPrompt: SystemPromptName; tools: RequestToolName[] }> = {
  "email-theme": { systemPrompt: "email-assistant-theme", tools: ["create-email-theme"] },
  "email-template": { systemPrompt: "email-assistant-template", tools: ["create-email-template"] },
  "email-draft": { systemPrompt: "email-assistant-draft", tools: ["create-email-draft"] },
  project: { systemPrompt: "command-center-ask-ai", tools: parseToolNames(["project"]) },
};

const conversationMessage = z.object({
  id: z.string().max(100).optional(),
  role: z.enum(["user", "assistant"]),
  content: jsonValue,
});
const conversationMessages = z.array(conversationMessage).max(500);
const titleField = storableText(200).min(1);
const empty = z.object({});

const proposalSchema = wire<WireAiProposal>()(
  z.object({
    id: z.string(),
    status: z.enum(["pending", "applied", "discarded"]),
    summary: z.string(),
    level: z.string(),
    diff: z.array(z.object({ path: z.string(), before: z.unknown(), after: z.unknown() })),
    created_at_millis: z.number(),
    decided_at_millis: z.number().nullable(),
  }),
);

export const aiRoutes = [
  defineRoute({
    method: "GET",
    path: "/internal/ai-status",
    summary:
      "Whether the AI helper has a model (GATEHOUSE_AI_*), and the caller's token usage of the last 30 days",
    tags,
    access: ["admin"],
    response: {
      body: z.object({
        configured: z.boolean(),
        model: z.string().nullable(),
        how_to_configure: z.string().nullable(),
        usage: z.object({ calls: z.number(), input_tokens: z.number(), output_tokens: z.number() }),
      }),
    },
    handler: async ({ deps, auth }) => {
      const usage = await usageTotals(deps, auth.project.id, ownerKeyOf(auth));
      return {
        body: {
          configured: deps.env.ai !== undefined,
          model: deps.env.ai?.model ?? null,
          how_to_configure: deps.env.ai
            ? null
            : "Set GATEHOUSE_AI_BASE_URL (an OpenAI-compatible endpoint), GATEHOUSE_AI_MODEL and, if it needs one, GATEHOUSE_AI_API_KEY, then restart the server.",
          usage: { calls: usage.calls, input_tokens: usage.inputTokens, output_tokens: usage.outputTokens },
        },
      };
    },
  }),
  admin.get("/internal/ai-chat/:threadId", {
    summary: "The stored messages of a thread, in creation order",
    request: { params: threadParams },
    response: { body: z.object({ messages: z.array(z.unknown()) }) },
    handler: async ({ deps, auth, params }) => ({
      body: { messages: await threadMessages(deps, auth.project.id, params.threadId) },
    }),
  }),
  admin.patch("/internal/ai-chat/:threadId", {
    summary: "Append one message (any JSON) to a thread",
    request: { params: threadParams, body: z.strictObject({ message: jsonValue }) },
    response: { body: empty },
    handler: async ({ deps, auth, params, body }) => {
      await appendThreadMessage(deps, auth.project.id, params.threadId, body.message);
      return { body: {} };
    },
  }),
  admin.post("/internal/ai-chat/:threadId", {
    summary: "Ask the model with a context's prompt and tools; the answer's text and tool calls (not stored)",
    request: {
      params: threadParams,
      body: z.strictObject({
        context_type: z.enum(["email-theme", "email-template", "email-draft", "project"]),
        messages: chatMessages,
      }),
    },
    response: { body: z.object({ content: z.array(contentBlock) }) },
    handler: async ({ deps, auth, body, clientIp }) => {
      const context = CONTEXTS[body.context_type]!;
      const answer = await generateAnswer(deps, auth, clientIp, {
        route: "chat",
        ...context,
        messages: await toModelMessages(body.messages),
      });
      return { body: { content: answer.content } };
    },
  }),
  admin.post("/ai/query/generate", {
    summary: "Ask the model; the whole answer at once (text and tool calls with their results)",
    request: { body: queryBody },
    response: {
      body: z.object({
        content: z.array(contentBlock),
        finalText: z.string(),
        conversationId: z.string().nullable(),
      }),
    },
    handler: async ({ deps, auth, body, clientIp }) => {
      checkProjectId(auth, body.projectId);
      const tools = parseToolNames(body.tools);
      const messages = await toModelMessages(body.messages);
      const answer = await generateAnswer(deps, auth, clientIp, {
        route: "generate",
        systemPrompt: body.systemPrompt,
        tools,
        messages,
      });
      return { body: { ...answer, conversationId: body.mcpCallMetadata?.conversationId ?? null } };
    },
  }),
  admin.post("/ai/query/stream", {
    summary: "Ask the model; the answer as an AI SDK UI message stream (server-sent events)",
    request: { body: queryBody },
    response: {
      raw: true,
      description:
        "text/event-stream: `data: {json}` chunks of the AI SDK UI message stream (start, text-delta, tool-input-available, tool-output-available, finish, error), then `data: [DONE]`",
    },
    handler: async ({ deps, auth, body, clientIp }) => {
      checkProjectId(auth, body.projectId);
      const tools = parseToolNames(body.tools);
      const messages = await toModelMessages(body.messages);
      return streamAnswer(deps, auth, clientIp, {
        route: "stream",
        systemPrompt: body.systemPrompt,
        tools,
        messages,
      });
    },
  }),
  admin.get("/internal/ai-conversations", {
    summary: "The caller's saved AI conversations of this project, most recent first",
    request: { query: z.strictObject({ projectId: z.string().max(100).optional() }) },
    response: {
      body: z.object({
        conversations: z.array(
          z.object({ id: z.string(), title: z.string(), projectId: z.string(), updatedAt: z.string() }),
        ),
      }),
    },
    handler: async ({ deps, auth, query }) => {
      checkProjectId(auth, query.projectId);
      const rows = await listConversations(deps, auth.project.id, ownerKeyOf(auth));
      return {
        body: {
          conversations: rows.map((row) => ({
            id: row.id,
            title: row.title,
            projectId: auth.project.id,
            updatedAt: row.updatedAt.toISOString(),
          })),
        },
      };
    },
  }),
  admin.post("/internal/ai-conversations", {
    summary: "Save a conversation",
    request: {
      body: z.strictObject({
        title: titleField,
        projectId: z.string().max(100).optional(),
        messages: conversationMessages,
      }),
    },
    response: { body: z.object({ id: z.string(), title: z.string() }) },
    handler: async ({ deps, auth, body }) => {
      checkProjectId(auth, body.projectId);
      return { body: await createConversation(deps, auth.project.id, ownerKeyOf(auth), body) };
    },
  }),
  admin.get("/internal/ai-conversations/:conversation_id", {
    summary: "One saved conversation with its messages",
    request: { params: conversationParams },
    response: {
      body: z.object({
        id: z.string(),
        title: z.string(),
        projectId: z.string(),
        messages: z.array(z.object({ id: z.string(), role: z.string(), content: z.unknown() })),
      }),
    },
    handler: async ({ deps, auth, params }) => {
      const row = await conversationOr404(deps, auth.project.id, ownerKeyOf(auth), params.conversation_id);
      return { body: { id: row.id, title: row.title, projectId: row.projectId, messages: row.messages } };
    },
  }),
  admin.patch("/internal/ai-conversations/:conversation_id", {
    summary: "Rename a saved conversation",
    request: { params: conversationParams, body: z.strictObject({ title: titleField }) },
    response: { body: empty },
    handler: async ({ deps, auth, params, body }) => {
      await updateConversation(deps, auth.project.id, ownerKeyOf(auth), params.conversation_id, {
        title: body.title,
      });
      return { body: {} };
    },
  }),
  admin.delete("/internal/ai-conversations/:conversation_id", {
    summary: "Delete a saved conversation",
    request: { params: conversationParams },
    response: { body: empty },
    handler: async ({ deps, auth, params }) => {
      await deleteConversation(deps, auth.project.id, ownerKeyOf(auth), params.conversation_id);
      return { body: {} };
    },
  }),
  admin.put("/internal/ai-conversations/:conversation_id/messages", {
    summary: "Replace a saved conversation's messages",
    request: { params: conversationParams, body: z.strictObject({ messages: conversationMessages }) },
    response: { body: empty },
    handler: async ({ deps, auth, params, body }) => {
      await updateConversation(deps, auth.project.id, ownerKeyOf(auth), params.conversation_id, {
        messages: body.messages,
      });
      return { body: {} };
    },
  }),
  admin.get("/internal/ai-proposals", {
    summary: "The config changes the AI helper proposed in this project, newest first (the last 50)",
    response: { body: z.object({ items: z.array(proposalSchema) }) },
    handler: async ({ deps, auth }) => ({
      body: { items: (await listProposals(deps, auth.project.id)).map(proposalView) },
    }),
  }),
  admin.get("/internal/ai-proposals/:proposal_id", {
    summary: "One proposed config change with its diff",
    request: { params: proposalParams },
    response: { body: proposalSchema },
    handler: async ({ deps, auth, params }) => ({
      body: proposalView(await proposalOr404(deps, auth.project.id, params.proposal_id)),
    }),
  }),
  admin.post("/internal/ai-proposals/:proposal_id/apply", {
    summary: "Apply a proposed config change (the owner's confirmation; 409 if the config changed meanwhile)",
    request: { params: proposalParams, body: z.strictObject({}).optional() },
    response: { body: proposalSchema },
    handler: async ({ deps, auth, params }) => ({
      body: proposalView(
        await decideProposal(deps, auth.project.id, params.proposal_id, "apply", ownerKeyOf(auth)),
      ),
    }),
  }),
  admin.post("/internal/ai-proposals/:proposal_id/discard", {
    summary: "Discard a proposed config change",
    request: { params: proposalParams, body: z.strictObject({}).optional() },
    response: { body: proposalSchema },
    handler: async ({ deps, auth, params }) => ({
      body: proposalView(
        await decideProposal(deps, auth.project.id, params.proposal_id, "discard", ownerKeyOf(auth)),
      ),
    }),
  }),
];
