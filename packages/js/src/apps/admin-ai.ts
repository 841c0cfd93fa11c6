/**
 * The admin app's AI helper (PROTOCOL-EXTRA §5): questions to the model (whole, or streamed as the AI SDK's UI
 * message stream), thread storage, saved conversations, and the config changes the model proposed, which only
 * `applyAiProposal` (the owner's click) applies.
 */
import type {
  WireAiAnswer,
  WireAiContentBlock,
  WireAiConversation,
  WireAiConversationCreated,
  WireAiConversationList,
  WireAiProposal,
  WireAiStatus,
  WireAiThread,
  WireItems,
} from "@gatehouse/shared";
import { call, type Scope, seg, withQuery } from "../objects/scope.ts";

export type AiChatMessage = { role: "user" | "assistant"; content: unknown };

export type AiQueryOptions = {
  messages: AiChatMessage[];
  /**
   * Request tool names: `project` (every project tool), or some of `read-config`, `search-users`, `search-teams`,
   * `explain-sign-in`, `draft-email-template`, `draft-permission-set`, `propose-config-change`, and the email
   * editors' `create-email-theme`, `create-email-template`, `create-email-draft`. Default: `project`.
   */
  tools?: string[];
  /** Default: `command-center-ask-ai`. */
  systemPrompt?: string;
};

/** One block of an answer: text, or a tool call with its arguments and result (the wire's own camelCase shape). */
export type AiContentBlock = WireAiContentBlock;

/** One chunk of the AI SDK UI message stream: `text-delta` {delta}, `tool-input-available` {toolCallId, toolName, input}, `tool-output-available` {toolCallId, output}, `error` {errorText}, `finish`, … */
export type AiStreamChunk = { type: string; [field: string]: unknown };

export type AiStatus = {
  configured: boolean;
  model: string | null;
  /** How to turn the helper on, when it is off. */
  howToConfigure: string | null;
  usage: { calls: number; inputTokens: number; outputTokens: number };
};

export type AiConversationSummary = { id: string; title: string; updatedAt: Date };
export type AiConversation = {
  id: string;
  title: string;
  messages: { id: string; role: "user" | "assistant"; content: unknown }[];
};

export type AiConfigProposal = {
  id: string;
  status: "pending" | "applied" | "discarded";
  summary: string;
  diff: { path: string; before: unknown; after: unknown }[];
  createdAt: Date;
  decidedAt: Date | null;
};

function proposalFromJson(json: WireAiProposal): AiConfigProposal {
  return {
    id: json.id,
    status: json.status,
    summary: json.summary,
    diff: json.diff,
    createdAt: new Date(json.created_at_millis),
    decidedAt: json.decided_at_millis === null ? null : new Date(json.decided_at_millis),
  };
}

/** Reads server-sent events (`data: …` lines) into JSON chunks, until `data: [DONE]` or the end. */
export async function* readUiMessageStream(response: Response): AsyncGenerator<AiStreamChunk> {
  if (!response.body) return;
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (value) buffer += value;
      let end = buffer.indexOf("\n\n");
      while (end !== -1) {
        const event = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = event
          .split("\n")
          .filter((line) => line.startsWith("data:"))
          .map((line) => line.slice(5).trimStart())
          .join("\n");
        if (data === "[DONE]") return;
        if (data !== "") yield JSON.parse(data) as AiStreamChunk;
        end = buffer.indexOf("\n\n");
      }
      if (done) return;
    }
  } finally {
    reader.releaseLock();
  }
}

export function aiMethods(scope: Scope) {
  const queryBody = (options: AiQueryOptions) => ({
    systemPrompt: options.systemPrompt ?? "command-center-ask-ai",
    tools: options.tools ?? ["project"],
    messages: options.messages,
  });
  return {
    /** Whether the server has a model (`GATEHOUSE_AI_*`), and this owner's usage over 30 days. */
    async getAiStatus(): Promise<AiStatus> {
      const json = await call<WireAiStatus>(scope, "/internal/ai-status");
      return {
        configured: json.configured,
        model: json.model,
        howToConfigure: json.how_to_configure,
        usage: {
          calls: json.usage.calls,
          inputTokens: json.usage.input_tokens,
          outputTokens: json.usage.output_tokens,
        },
      };
    },
    /** The whole answer at once: text blocks and tool calls with their results. */
    async askAi(options: AiQueryOptions): Promise<{ content: AiContentBlock[]; finalText: string }> {
      const json = await call<WireAiAnswer>(scope, "/ai/query/generate", {
        method: "POST",
        body: queryBody(options),
      });
      return { content: json.content, finalText: json.finalText };
    },
    /** The answer as it is written: the AI SDK's UI message stream chunks. */
    async streamAi(options: AiQueryOptions): Promise<AsyncGenerator<AiStreamChunk>> {
      const response = await scope.ctx.callStream("/ai/query/stream", {
        method: "POST",
        body: queryBody(options),
        accessType: scope.accessType,
        session: scope.session,
      });
      return readUiMessageStream(response);
    },
    async getAiThread(threadId: string): Promise<unknown[]> {
      return (await call<WireAiThread>(scope, `/internal/ai-chat/${seg(threadId)}`)).messages;
    },
    async appendAiThreadMessage(threadId: string, message: unknown): Promise<void> {
      await call(scope, `/internal/ai-chat/${seg(threadId)}`, { method: "PATCH", body: { message } });
    },
    async listAiConversations(): Promise<AiConversationSummary[]> {
      const json = await call<WireAiConversationList>(scope, withQuery("/internal/ai-conversations", {}));
      return json.conversations.map((c) => ({
        id: c.id,
        title: c.title,
        updatedAt: new Date(c.updatedAt),
      }));
    },
    async createAiConversation(options: {
      title: string;
      messages: AiChatMessage[];
    }): Promise<{ id: string }> {
      const json = await call<WireAiConversationCreated>(scope, "/internal/ai-conversations", {
        method: "POST",
        body: options,
      });
      return { id: json.id };
    },
    async getAiConversation(id: string): Promise<AiConversation> {
      const json = await call<WireAiConversation>(scope, `/internal/ai-conversations/${seg(id)}`);
      // Stored from the save request, whose schema takes only user and assistant messages.
      return { id: json.id, title: json.title, messages: json.messages as AiConversation["messages"] };
    },
    async renameAiConversation(id: string, title: string): Promise<void> {
      await call(scope, `/internal/ai-conversations/${seg(id)}`, { method: "PATCH", body: { title } });
    },
    async saveAiConversationMessages(
      id: string,
      messages: (AiChatMessage & { id?: string })[],
    ): Promise<void> {
      await call(scope, `/internal/ai-conversations/${seg(id)}/messages`, {
        method: "PUT",
        body: { messages },
      });
    },
    async deleteAiConversation(id: string): Promise<void> {
      await call(scope, `/internal/ai-conversations/${seg(id)}`, { method: "DELETE" });
    },
    async listAiProposals(): Promise<AiConfigProposal[]> {
      return (await call<WireItems<WireAiProposal>>(scope, "/internal/ai-proposals")).items.map(
        proposalFromJson,
      );
    },
    async getAiProposal(id: string): Promise<AiConfigProposal> {
      return proposalFromJson(await call<WireAiProposal>(scope, `/internal/ai-proposals/${seg(id)}`));
    },
    /** The owner's confirmation: applies the proposed change (a 409 if the config changed since). */
    async applyAiProposal(id: string): Promise<AiConfigProposal> {
      return proposalFromJson(
        await call<WireAiProposal>(scope, `/internal/ai-proposals/${seg(id)}/apply`, {
          method: "POST",
          body: {},
        }),
      );
    },
    async discardAiProposal(id: string): Promise<AiConfigProposal> {
      return proposalFromJson(
        await call<WireAiProposal>(scope, `/internal/ai-proposals/${seg(id)}/discard`, {
          method: "POST",
          body: {},
        }),
      );
    },
  };
}
