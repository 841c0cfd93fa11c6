/**
 * Thread storage (PROTOCOL-EXTRA §5.1), saved conversations (§5.2) and token usage: the writer of this folder's
 * tables. Every query filters by project, conversations also by owner.
 */
import { and, asc, desc, eq, sql } from "drizzle-orm";
import { randomUuid } from "../../crypto/index.ts";
import type { AppDeps } from "../../deps.ts";
import { isUuid } from "../../fields/ids.ts";
import { StatusError } from "../../http/status-error.ts";
import { type AiStoredMessage, aiChatMessages, aiConversations, aiUsage } from "./schema.ts";

/** Who a conversation, a proposal or a rate-limit counter belongs to within the project. */
export { ownerKeyOf } from "../../http/request-auth.ts";

export const MAX_THREAD_MESSAGES = 1000;

export async function threadMessages(deps: AppDeps, projectId: string, threadId: string): Promise<unknown[]> {
  const rows = await deps.db
    .select({ content: aiChatMessages.content })
    .from(aiChatMessages)
    .where(and(eq(aiChatMessages.projectId, projectId), eq(aiChatMessages.threadId, threadId)))
    .orderBy(asc(aiChatMessages.seq))
    .limit(MAX_THREAD_MESSAGES);
  return rows.map((row) => row.content);
}

export async function appendThreadMessage(
  deps: AppDeps,
  projectId: string,
  threadId: string,
  content: unknown,
): Promise<void> {
  const [{ count } = { count: 0 }] = await deps.db
    .select({ count: sql<number>`count(*)::int` })
    .from(aiChatMessages)
    .where(and(eq(aiChatMessages.projectId, projectId), eq(aiChatMessages.threadId, threadId)));
  if (count >= MAX_THREAD_MESSAGES) {
    throw new StatusError(400, `A thread holds at most ${MAX_THREAD_MESSAGES} messages; start a new one.`);
  }
  await deps.db.insert(aiChatMessages).values({ projectId, id: randomUuid(), threadId, content });
}

type ConversationMessageInput = { id?: string | undefined; role: "user" | "assistant"; content: unknown };

function withIds(messages: readonly ConversationMessageInput[]): AiStoredMessage[] {
  return messages.map((message) => ({
    id: message.id ?? randomUuid(),
    role: message.role,
    content: message.content,
  }));
}

const ofConversation = (projectId: string, ownerKey: string, id: string) =>
  and(
    eq(aiConversations.projectId, projectId),
    eq(aiConversations.ownerKey, ownerKey),
    eq(aiConversations.id, id),
  );

const notFound = (id: string) => new StatusError(404, `No AI conversation with id ${id}.`);

export async function listConversations(deps: AppDeps, projectId: string, ownerKey: string) {
  return deps.db
    .select({ id: aiConversations.id, title: aiConversations.title, updatedAt: aiConversations.updatedAt })
    .from(aiConversations)
    .where(and(eq(aiConversations.projectId, projectId), eq(aiConversations.ownerKey, ownerKey)))
    .orderBy(desc(aiConversations.updatedAt), desc(aiConversations.id))
    .limit(200);
}

export async function createConversation(
  deps: AppDeps,
  projectId: string,
  ownerKey: string,
  input: { title: string; messages: readonly ConversationMessageInput[] },
) {
  const id = randomUuid();
  await deps.db
    .insert(aiConversations)
    .values({ projectId, id, ownerKey, title: input.title, messages: withIds(input.messages) });
  return { id, title: input.title };
}

export async function conversationOr404(deps: AppDeps, projectId: string, ownerKey: string, id: string) {
  const [row] = isUuid(id)
    ? await deps.db
        .select()
        .from(aiConversations)
        .where(ofConversation(projectId, ownerKey, id))
    : [];
  if (!row) throw notFound(id);
  return row;
}

export async function updateConversation(
  deps: AppDeps,
  projectId: string,
  ownerKey: string,
  id: string,
  change: { title?: string; messages?: readonly ConversationMessageInput[] },
): Promise<void> {
  if (!isUuid(id)) throw notFound(id);
  const [updated] = await deps.db
    .update(aiConversations)
    .set({
      ...(change.title !== undefined ? { title: change.title } : {}),
      ...(change.messages !== undefined ? { messages: withIds(change.messages) } : {}),
      updatedAt: sql`now()`,
    })
    .where(ofConversation(projectId, ownerKey, id))
    .returning({ id: aiConversations.id });
  if (!updated) throw notFound(id);
}

export async function deleteConversation(deps: AppDeps, projectId: string, ownerKey: string, id: string) {
  if (!isUuid(id)) throw notFound(id);
  const [deleted] = await deps.db
    .delete(aiConversations)
    .where(ofConversation(projectId, ownerKey, id))
    .returning({ id: aiConversations.id });
  if (!deleted) throw notFound(id);
}

export type UsageRecord = {
  route: "generate" | "stream" | "chat";
  model: string;
  steps: number;
  inputTokens: number | undefined;
  outputTokens: number | undefined;
  totalTokens: number | undefined;
  error?: string | undefined;
};

export async function recordUsage(deps: AppDeps, projectId: string, ownerKey: string, usage: UsageRecord) {
  await deps.db.insert(aiUsage).values({
    projectId,
    id: randomUuid(),
    ownerKey,
    route: usage.route,
    model: usage.model,
    steps: usage.steps,
    inputTokens: usage.inputTokens ?? null,
    outputTokens: usage.outputTokens ?? null,
    totalTokens: usage.totalTokens ?? null,
    error: usage.error?.slice(0, 500) ?? null,
  });
}

/** Token totals of the project's owner over the last `days` days. */
export async function usageTotals(deps: AppDeps, projectId: string, ownerKey: string, days = 30) {
  const [row] = await deps.db
    .select({
      calls: sql<number>`count(*)::int`,
      inputTokens: sql<number>`coalesce(sum(${aiUsage.inputTokens}), 0)::int`,
      outputTokens: sql<number>`coalesce(sum(${aiUsage.outputTokens}), 0)::int`,
    })
    .from(aiUsage)
    .where(
      and(
        eq(aiUsage.projectId, projectId),
        eq(aiUsage.ownerKey, ownerKey),
        sql`${aiUsage.createdAt} > now() - make_interval(days => ${days})`,
      ),
    );
  return row ?? { calls: 0, inputTokens: 0, outputTokens: 0 };
}
