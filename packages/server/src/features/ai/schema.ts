import { bigserial, index, integer, jsonb, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { projectIdColumn } from "../projects/schema.ts";

/**
 * Thread storage of the AI helper (PROTOCOL-EXTRA §5.1): messages stored verbatim, per project and thread id (any
 * string the client picks, e.g. an email template's id). The server never interprets them.
 */
export const aiChatMessages = pgTable(
  "ai_chat_messages",
  {
    projectId: projectIdColumn(),
    id: uuid("id").primaryKey(),
    /** Creation order within a thread (several messages can share a timestamp). */
    seq: bigserial("seq", { mode: "number" }).notNull(),
    threadId: text("thread_id").notNull(),
    content: jsonb("content").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [index("ai_chat_messages_thread_idx").on(t.projectId, t.threadId, t.seq)],
);

/**
 * Saved conversations of the dashboard's chat panel (PROTOCOL-EXTRA §5.2), per project and owner. `owner_key` is
 * `user:<id>` for an owner signed in to the dashboard (admin access token), `admin-key` for callers with the
 * project's admin key.
 */
export const aiConversations = pgTable(
  "ai_conversations",
  {
    projectId: projectIdColumn(),
    id: uuid("id").primaryKey(),
    ownerKey: text("owner_key").notNull(),
    title: text("title").notNull(),
    /** `[{id, role, content}]`, replaced whole by `PUT …/messages`. */
    messages: jsonb("messages").$type<AiStoredMessage[]>().notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [index("ai_conversations_owner_idx").on(t.projectId, t.ownerKey, t.updatedAt)],
);

export type AiStoredMessage = { id: string; role: "user" | "assistant"; content: unknown };

/**
 * Config changes the model proposed (its `proposeConfigChange` tool): stored with the diff the owner was shown, and
 * applied only by the owner's own call (`POST /internal/ai-proposals/:proposal_id/apply`), never by the model.
 */
export const aiConfigProposals = pgTable(
  "ai_config_proposals",
  {
    projectId: projectIdColumn(),
    id: uuid("id").primaryKey(),
    ownerKey: text("owner_key").notNull(),
    /** The override level it patches (dot-notation keys, PATCH semantics). */
    level: text("level", { enum: ["environment"] }).notNull(),
    override: jsonb("override").$type<Record<string, unknown>>().notNull(),
    /** `[{path, before, after}]` of the rendered config, secrets shown as `(secret)`. */
    diff: jsonb("diff").$type<AiConfigDiffEntry[]>().notNull(),
    summary: text("summary").notNull(),
    status: text("status", { enum: ["pending", "applied", "discarded"] })
      .notNull()
      .default("pending"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    decidedAt: timestamp("decided_at", { withTimezone: true, mode: "date" }),
    decidedBy: text("decided_by"),
  },
  (t) => [index("ai_config_proposals_project_idx").on(t.projectId, t.createdAt)],
);

export type AiConfigDiffEntry = { path: string; before: unknown; after: unknown };
export type AiConfigProposalRow = typeof aiConfigProposals.$inferSelect;

/** Token usage of every model call, per project and owner. */
export const aiUsage = pgTable(
  "ai_usage",
  {
    projectId: projectIdColumn(),
    id: uuid("id").primaryKey(),
    ownerKey: text("owner_key").notNull(),
    /** Which route made the call: `generate`, `stream` or `chat` (POST /internal/ai-chat/:threadId). */
    route: text("route").notNull(),
    model: text("model").notNull(),
    steps: integer("steps").notNull(),
    inputTokens: integer("input_tokens"),
    outputTokens: integer("output_tokens"),
    totalTokens: integer("total_tokens"),
    /** Set when the call failed (the provider's error, shortened). */
    error: text("error"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [index("ai_usage_project_idx").on(t.projectId, t.ownerKey, t.createdAt)],
);
