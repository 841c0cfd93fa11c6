/**
 * One question to the model, for `/ai/query/{generate|stream}` and `POST /internal/ai-chat/:threadId`: the configured
 * model (or a 400 saying how to configure one), the owner's rate limit, the system prompt, the tools of the request,
 * a bounded tool loop, and the token usage recorded per call.
 */
import type { WireAiContentBlock } from "@gatehouse/shared";
import type { ModelMessage, StepResult, ToolSet } from "ai";
import { z } from "zod";
import type { AppDeps } from "../../deps.ts";
import type { RequestAuth } from "../../http/request-auth.ts";
import { StatusError } from "../../http/status-error.ts";
import { consumeRateLimit, rateLimitScope, refuseWhileLimitReached } from "../../rate-limit/limiter.ts";
import { RATE_LIMITS } from "../../rate-limit/rules.ts";
import { aiModelOrThrow } from "./model.ts";
import { type SystemPromptName, systemPrompt } from "./prompts.ts";
import { ownerKeyOf, recordUsage } from "./service.ts";
import { buildTools, CLIENT_TOOL_NAMES, PROJECT_TOOL_NAMES, type RequestToolName } from "./tools.ts";

/** Model calls per question: a few tool rounds, then an answer. */
export const MAX_STEPS = 6;
const CALL_TIMEOUT_MS = 120_000;

/** Request tool names the server takes; `project` stands for every project tool, `docs` is the system prompt's. */
export function parseToolNames(names: readonly string[]): RequestToolName[] {
  const out = new Set<RequestToolName>();
  for (const name of names) {
    if (name === "project") for (const n of Object.keys(PROJECT_TOOL_NAMES)) out.add(n as RequestToolName);
    else if (name === "docs") continue;
    else if (Object.hasOwn(PROJECT_TOOL_NAMES, name) || Object.hasOwn(CLIENT_TOOL_NAMES, name))
      out.add(name as RequestToolName);
    else if (name === "sql-query" || name === "update-dashboard")
      throw new StatusError(400, `The tool "${name}" is not supported by this server.`);
    else throw new StatusError(400, `Unknown tool "${name}".`);
  }
  return [...out];
}

/**
 * The AI SDK, loaded with the first AI request rather than at start: with its OpenAI-compatible provider it adds
 * ~0.1 s and ~5 MiB to a server that has zod loaded already, and most servers never ask a model anything.
 */
function aiSdk() {
  return import("ai");
}

type AiSdk = Awaited<ReturnType<typeof aiSdk>>;

/** The chat messages of a request, checked against the AI SDK's own message schema (a plain 400 if they do not fit). */
export async function toModelMessages(messages: readonly unknown[]): Promise<ModelMessage[]> {
  const { modelMessageSchema } = await aiSdk();
  const parsed = z.array(modelMessageSchema as z.ZodType<ModelMessage>).safeParse(messages);
  if (!parsed.success) {
    throw new StatusError(
      400,
      'Invalid messages: each must be {role: "user"|"assistant", content: text or parts}, or a tool message with tool results.',
    );
  }
  if (parsed.data.some((message) => message.role === "system")) {
    throw new StatusError(400, "Invalid messages: the system prompt is the server's.");
  }
  return parsed.data;
}

export type AiQuery = {
  route: "generate" | "stream" | "chat";
  systemPrompt: SystemPromptName;
  tools: readonly RequestToolName[];
  messages: ModelMessage[];
};

async function prepare(deps: AppDeps, auth: RequestAuth, clientIp: string | null, query: AiQuery) {
  const { model, name } = await aiModelOrThrow(deps.env.ai);
  const ownerKey = ownerKeyOf(auth);
  const limits = rateLimitScope(deps, auth, clientIp);
  // A question that may run project tools waits, whole, while the owner's tool runs are used up (tools.ts).
  if (query.tools.some((name) => Object.hasOwn(PROJECT_TOOL_NAMES, name))) {
    await refuseWhileLimitReached(limits, RATE_LIMITS.aiToolCallsPerOwner, ownerKey);
  }
  await consumeRateLimit(limits, RATE_LIMITS.aiQueryPerOwner, ownerKey);
  const tools = await buildTools(
    { deps, projectId: auth.project.id, config: auth.config, ownerKey, limits },
    query.tools,
  );
  const sdk = await aiSdk();
  return {
    sdk,
    ownerKey,
    modelName: name,
    settings: {
      model,
      system: systemPrompt(query.systemPrompt, auth.project),
      messages: query.messages,
      tools,
      stopWhen: sdk.stepCountIs(MAX_STEPS),
      maxRetries: 1,
    },
  };
}

function providerError(sdk: AiSdk, error: unknown): StatusError | undefined {
  if (sdk.APICallError.isInstance(error)) {
    const status = error.statusCode ? ` (${error.statusCode})` : "";
    return new StatusError(
      502,
      `The AI model at GATEHOUSE_AI_BASE_URL failed${status}: ${error.message.slice(0, 300)}`,
    );
  }
  return undefined;
}

/** A generated answer's content blocks (PROTOCOL-EXTRA §5.2): text, and each tool call with its result. */
export function contentBlocks(steps: readonly StepResult<ToolSet>[]) {
  const blocks: WireAiContentBlock[] = [];
  for (const step of steps) {
    for (const part of step.content) {
      if (part.type === "text" && part.text) blocks.push({ type: "text", text: part.text });
      if (part.type === "tool-call") {
        const outcome = step.content.find(
          (other) =>
            (other.type === "tool-result" || other.type === "tool-error") &&
            other.toolCallId === part.toolCallId,
        );
        const result =
          outcome?.type === "tool-result"
            ? outcome.output
            : outcome?.type === "tool-error"
              ? { error: String(outcome.error) }
              : null;
        blocks.push({
          type: "tool-call",
          toolName: part.toolName,
          toolCallId: part.toolCallId,
          args: part.input,
          argsText: JSON.stringify(part.input ?? {}),
          result,
        });
      }
    }
  }
  return blocks;
}

export async function generateAnswer(
  deps: AppDeps,
  auth: RequestAuth,
  clientIp: string | null,
  query: AiQuery,
) {
  const { sdk, ownerKey, modelName, settings } = await prepare(deps, auth, clientIp, query);
  const usage = { route: query.route, model: modelName };
  try {
    const result = await sdk.generateText({ ...settings, abortSignal: AbortSignal.timeout(CALL_TIMEOUT_MS) });
    await recordUsage(deps, auth.project.id, ownerKey, {
      ...usage,
      steps: result.steps.length,
      inputTokens: result.totalUsage.inputTokens,
      outputTokens: result.totalUsage.outputTokens,
      totalTokens: result.totalUsage.totalTokens,
    });
    return { content: contentBlocks(result.steps), finalText: result.text };
  } catch (error) {
    await recordUsage(deps, auth.project.id, ownerKey, { ...usage, ...failedCallUsage(error) });
    throw providerError(sdk, error) ?? error;
  }
}

/** What a call that failed is recorded as using: no steps, no tokens, and why it failed. */
function failedCallUsage(error: unknown) {
  return {
    steps: 0,
    inputTokens: undefined,
    outputTokens: undefined,
    totalTokens: undefined,
    error: error instanceof Error ? error.message : String(error),
  };
}

/** The answer as an AI SDK UI message stream (SSE); usage is recorded when it ends. */
export async function streamAnswer(
  deps: AppDeps,
  auth: RequestAuth,
  clientIp: string | null,
  query: AiQuery,
): Promise<Response> {
  const { sdk, ownerKey, modelName, settings } = await prepare(deps, auth, clientIp, query);
  const usage = { route: query.route, model: modelName };
  let failed = false;
  const result = sdk.streamText({
    ...settings,
    abortSignal: AbortSignal.timeout(CALL_TIMEOUT_MS),
    onFinish: async ({ totalUsage, steps }) => {
      if (failed) return;
      await recordUsage(deps, auth.project.id, ownerKey, {
        ...usage,
        steps: steps.length,
        inputTokens: totalUsage.inputTokens,
        outputTokens: totalUsage.outputTokens,
        totalTokens: totalUsage.totalTokens,
      });
    },
    onError: async ({ error }) => {
      failed = true;
      await recordUsage(deps, auth.project.id, ownerKey, { ...usage, ...failedCallUsage(error) }).catch(
        () => {},
      );
    },
  });
  return result.toUIMessageStreamResponse({
    onError: (error) => providerError(sdk, error)?.message ?? "The AI model failed to answer.",
  });
}
