/** The AI helper's routes (`/internal/ai-*`, `/ai/query/generate`): status, answers, threads, proposals. */

export type WireAiStatus = {
  configured: boolean;
  model: string | null;
  how_to_configure: string | null;
  usage: { calls: number; input_tokens: number; output_tokens: number };
};

export type WireAiContentBlock =
  | { type: "text"; text: string }
  | {
      type: "tool-call";
      toolName: string;
      toolCallId: string;
      args: unknown;
      argsText: string;
      result: unknown;
    };

/** `POST /ai/query/generate` (camelCase, as the reference has it). */
export type WireAiAnswer = {
  content: WireAiContentBlock[];
  finalText: string;
  conversationId: string | null;
};

/** `GET /internal/ai-chat/{threadId}`: the messages as stored, any JSON. */
export type WireAiThread = { messages: unknown[] };

export type WireAiConversationList = {
  conversations: { id: string; title: string; projectId: string; updatedAt: string }[];
};

export type WireAiConversationCreated = { id: string; title: string };

export type WireAiConversation = {
  id: string;
  title: string;
  projectId: string;
  messages: { id: string; role: string; content: unknown }[];
};

export type WireAiProposal = {
  id: string;
  status: "pending" | "applied" | "discarded";
  summary: string;
  level: string;
  diff: { path: string; before: unknown; after: unknown }[];
  created_at_millis: number;
  decided_at_millis: number | null;
};
