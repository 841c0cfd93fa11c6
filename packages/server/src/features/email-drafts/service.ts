/**
 * Email drafts (PROTOCOL-EXTRA §1.5): the table's one writer. Every query filters by project. `send-email
 * {draft_id}` reads a draft with `draftForSending` and marks it with `markDraftSent`.
 */
import { and, desc, eq, sql } from "drizzle-orm";
import { randomUuid } from "../../crypto/index.ts";
import type { AppDeps } from "../../deps.ts";
import { NEW_DRAFT_SOURCE } from "../../email-rendering/index.ts";
import { isUuid } from "../../fields/ids.ts";
import { StatusError } from "../../http/status-error.ts";
import { type EmailDraftRow, emailDrafts } from "./schema.ts";

/** A draft's theme on the wire: a theme id, `false` for none, undefined for the project's selected theme. */
export type DraftThemeChoice = string | false | undefined;

export type DraftInput = {
  displayName: string;
  themeId?: string | false | null | undefined;
  tsxSource?: string;
};

function themeColumns(choice: string | false | null | undefined) {
  if (choice === false) return { themeMode: "none" as const, themeId: null };
  if (typeof choice === "string") return { themeMode: "custom" as const, themeId: choice };
  return { themeMode: "project-default" as const, themeId: null };
}

export function draftThemeChoice(row: EmailDraftRow): DraftThemeChoice {
  if (row.themeMode === "none") return false;
  if (row.themeMode === "custom" && row.themeId) return row.themeId;
  return undefined;
}

/** The draft read shape (PROTOCOL-EXTRA §1.5): `theme_id` is left out for the project's default theme. */
export function draftView(row: EmailDraftRow) {
  const themeId = draftThemeChoice(row);
  return {
    id: row.id,
    display_name: row.displayName,
    tsx_source: row.tsxSource,
    ...(themeId === undefined ? {} : { theme_id: themeId }),
    sent_at_millis: row.sentAt?.getTime() ?? null,
  };
}

const ofProject = (projectId: string, id: string) =>
  and(eq(emailDrafts.projectId, projectId), eq(emailDrafts.id, id));

/** Newest-updated first. */
export function listDrafts(deps: AppDeps, projectId: string): Promise<EmailDraftRow[]> {
  return deps.db
    .select()
    .from(emailDrafts)
    .where(eq(emailDrafts.projectId, projectId))
    .orderBy(desc(emailDrafts.updatedAt), desc(emailDrafts.id));
}

/** The draft, or undefined (also for an id that is not a uuid, which names no draft). */
export async function findDraft(deps: AppDeps, projectId: string, id: string) {
  if (!isUuid(id)) return undefined;
  const [row] = await deps.db.select().from(emailDrafts).where(ofProject(projectId, id));
  return row;
}

const notFound = (id: string) => new StatusError(404, `No email draft with id ${id}.`);

export async function draftOr404(deps: AppDeps, projectId: string, id: string): Promise<EmailDraftRow> {
  const row = await findDraft(deps, projectId, id);
  if (!row) throw notFound(id);
  return row;
}

export async function createDraft(deps: AppDeps, projectId: string, input: DraftInput): Promise<string> {
  const id = randomUuid();
  await deps.db.insert(emailDrafts).values({
    projectId,
    id,
    displayName: input.displayName,
    tsxSource: input.tsxSource ?? NEW_DRAFT_SOURCE,
    ...themeColumns(input.themeId),
  });
  return id;
}

/**
 * Changes a draft. As in the protocol, the theme is always written: leaving `themeId` out sets the draft back to
 * the project's default theme.
 */
export async function updateDraft(
  deps: AppDeps,
  projectId: string,
  id: string,
  input: Partial<DraftInput>,
): Promise<void> {
  if (!isUuid(id)) throw notFound(id);
  const [updated] = await deps.db
    .update(emailDrafts)
    .set({
      ...(input.displayName !== undefined ? { displayName: input.displayName } : {}),
      ...(input.tsxSource !== undefined ? { tsxSource: input.tsxSource } : {}),
      ...themeColumns(input.themeId),
      updatedAt: sql`now()`,
    })
    .where(ofProject(projectId, id))
    .returning({ id: emailDrafts.id });
  if (!updated) throw notFound(id);
}

export async function deleteDraft(deps: AppDeps, projectId: string, id: string): Promise<void> {
  if (!isUuid(id)) throw notFound(id);
  const [deleted] = await deps.db
    .delete(emailDrafts)
    .where(ofProject(projectId, id))
    .returning({ id: emailDrafts.id });
  if (!deleted) throw notFound(id);
}

/** What `send-email {draft_id}` needs of a draft: its TSX and theme choice; undefined for an unknown draft. */
export async function draftForSending(deps: AppDeps, projectId: string, id: string) {
  const row = await findDraft(deps, projectId, id);
  return row ? { id: row.id, tsxSource: row.tsxSource, themeChoice: draftThemeChoice(row) } : undefined;
}

/** Records that the draft was sent (`sent_at_millis`); its place in the list stays where its last edit put it. */
export async function markDraftSent(deps: AppDeps, projectId: string, id: string): Promise<void> {
  await deps.db.update(emailDrafts).set({ sentAt: sql`now()` }).where(ofProject(projectId, id));
}
