/**
 * The outbox's first step: rows queued as a template (`preparing`) are rendered into the message that will be sent,
 * or marked `render_error` / `skipped`. Runs in the outbox worker (worker.ts), never in a request.
 *
 * A batch of up to 50 rows is claimed with `FOR UPDATE SKIP LOCKED` (any number of instances may run it). Rows of
 * one project with the same template and theme render in one sandbox job (email-rendering/render.ts), which is
 * what makes a send to thousands of users affordable. The category of an email is known up front when the sender
 * chose it, else from the template's `<NotificationCategory>`: then a Marketing email to a user is rendered a
 * second time, with the unsubscribe link its theme shows.
 */
import { and, eq, inArray, lte, sql } from "drizzle-orm";
import type { PgUpdateSetSource } from "drizzle-orm/pg-core";
import { inMs, msUntilEarliest } from "../../background/leased-queue.ts";
import type { RenderedConfig } from "../../config/index.ts";
import type { AppDeps } from "../../deps.ts";
import {
  EmailRenderError,
  type ProjectLogos,
  type RenderedEmail,
  renderEmailBatch,
} from "../../email-rendering/index.ts";
import {
  findCategoryById,
  findCategoryByName,
  MARKETING_CATEGORY,
  type NotificationCategory,
  TRANSACTIONAL_CATEGORY,
} from "../notifications/categories.ts";
import { getRenderedConfigs } from "../projects/config-store.ts";
import { projects } from "../projects/schema.ts";
import { openVariables, redactMessage, sealMessage } from "./body.ts";
import { secretsOf } from "./built-in.ts";
import { addressesFor, loadRecipientUsers, type RecipientUser, usersUnsubscribedFrom } from "./recipients.ts";
import { type EmailSkipReason, type SentEmailRow, sentEmails } from "./schema.ts";
import { createUnsubscribeLink } from "./unsubscribe.ts";

/** What rendering needs of the server: the database and the secret that seals the messages. */
type RenderDeps = Pick<AppDeps, "db" | "env">;

export type RenderStepOptions = {
  batchSize?: number;
  leaseMs?: number;
  /** True once the worker is stopping: no further batch is claimed, and a failed one is handed back due now. */
  stopping?: () => boolean;
};

const DEFAULTS: Required<RenderStepOptions> = { batchSize: 50, leaseMs: 5 * 60_000, stopping: () => false };
/**
 * How long a batch whose rendering failed as a whole waits before any worker tries it again. Not a template's own
 * error (that is the row's `render_error`) but the machinery's: the database, the sandbox, or esbuild's service
 * process, which a signal sent to the whole process group (Ctrl-C, systemd's stop) ends under a draining server.
 */
const RETRY_AFTER_FAILURE_MS = 30_000;

type Claimed = SentEmailRow & { startedRenderingAt: Date };

/** A row on its way through this step: who it goes to, and its variables. */
type Job = {
  row: Claimed;
  to: string[];
  user: RecipientUser | null;
  variables: Record<string, unknown>;
  unsubscribeUrl?: string;
};

/** Renders due rows until none are left; returns how many were handled. */
export async function renderDueEmails(deps: RenderDeps, options: RenderStepOptions = {}): Promise<number> {
  const settings = { ...DEFAULTS, ...options };
  let handled = 0;
  for (;;) {
    if (settings.stopping()) return handled;
    const batch = await claim(deps, settings);
    if (batch.length === 0) return handled;
    try {
      await renderBatch(deps, batch);
    } catch (error) {
      // The rows it did not finish go back to `preparing` for any worker, rather than wait out the lease.
      const delayMs = settings.stopping() ? 0 : RETRY_AFTER_FAILURE_MS;
      await Promise.all(
        batch.map((row) => fenced(deps, row, { status: "preparing", nextAttemptAt: inMs(delayMs) })),
      ).catch(() => {});
      throw error;
    }
    handled += batch.length;
    if (batch.length < settings.batchSize) return handled;
  }
}

/** Milliseconds until the next row waits to be rendered (a retry after a failed batch, a lease running out). */
export function nextRenderDueInMs(deps: RenderDeps): Promise<number | null> {
  return msUntilEarliest(
    deps.db,
    sentEmails,
    sql`${sentEmails.nextAttemptAt}`,
    and(inArray(sentEmails.status, ["preparing", "rendering"]), eq(sentEmails.isPaused, false)),
  );
}

async function claim(deps: RenderDeps, settings: Required<RenderStepOptions>): Promise<Claimed[]> {
  const due = deps.db
    .select({ id: sentEmails.id })
    .from(sentEmails)
    .where(
      and(
        inArray(sentEmails.status, ["preparing", "rendering"]),
        lte(sentEmails.nextAttemptAt, sql`now()`),
        eq(sentEmails.isPaused, false),
      ),
    )
    .orderBy(sentEmails.nextAttemptAt)
    .limit(settings.batchSize)
    .for("update", { skipLocked: true });
  // A JavaScript time (millisecond precision) so that the write-back can match it exactly (see `fenced`).
  const startedRenderingAt = new Date();
  const rows = await deps.db
    .update(sentEmails)
    .set({
      status: "rendering",
      startedRenderingAt,
      nextAttemptAt: inMs(settings.leaseMs),
      updatedAt: sql`now()`,
    })
    .where(inArray(sentEmails.id, due))
    .returning();
  return rows as Claimed[];
}

/** Writes a row's outcome only if this worker still holds its claim (its lease did not run out meanwhile). */
function fenced(deps: RenderDeps, row: Claimed, values: PgUpdateSetSource<typeof sentEmails>) {
  return deps.db
    .update(sentEmails)
    .set({ ...values, updatedAt: sql`now()` })
    .where(
      and(
        eq(sentEmails.projectId, row.projectId),
        eq(sentEmails.id, row.id),
        eq(sentEmails.status, "rendering"),
        eq(sentEmails.startedRenderingAt, row.startedRenderingAt),
      ),
    );
}

function skip(
  deps: RenderDeps,
  row: Claimed,
  reason: EmailSkipReason,
  details: Record<string, unknown> = {},
) {
  return fenced(deps, row, {
    status: "skipped",
    skippedReason: reason,
    skippedDetails: details,
    skippedAt: sql`now()`,
  });
}

function renderFailed(deps: RenderDeps, row: Claimed, message: string) {
  return fenced(deps, row, { status: "render_error", renderError: message, renderedAt: sql`now()` });
}

async function renderBatch(deps: RenderDeps, batch: Claimed[]): Promise<void> {
  const projectIds = [...new Set(batch.map((row) => row.projectId))];
  const [configs, projectRows] = await Promise.all([
    getRenderedConfigs(deps, projectIds),
    deps.db.select().from(projects).where(inArray(projects.id, projectIds)),
  ]);
  for (const project of projectRows) {
    const rows = batch.filter((row) => row.projectId === project.id);
    const config = configs.get(project.id);
    if (!config) continue;
    const logos: ProjectLogos = {};
    if (project.logoUrl) logos.logoUrl = project.logoUrl;
    if (project.logoFullUrl) logos.logoFullUrl = project.logoFullUrl;
    if (project.logoDarkModeUrl) logos.logoDarkModeUrl = project.logoDarkModeUrl;
    if (project.logoFullDarkModeUrl) logos.logoFullDarkModeUrl = project.logoFullDarkModeUrl;
    await renderProjectRows(deps, { id: project.id, displayName: project.displayName, logos, config }, rows);
  }
}

type ProjectContext = { id: string; displayName: string; logos: ProjectLogos; config: RenderedConfig };

async function renderProjectRows(deps: RenderDeps, project: ProjectContext, rows: Claimed[]): Promise<void> {
  const known = await loadRecipientUsers(
    deps.db,
    project.id,
    rows.map((row) => row.recipient ?? { type: "custom-emails", emails: row.to }),
  );
  const jobs: Job[] = [];
  for (const row of rows) {
    const addressing = addressesFor(row.recipient ?? { type: "custom-emails", emails: row.to }, known);
    if ("skip" in addressing) {
      await skip(deps, row, addressing.skip);
      continue;
    }
    let variables: Record<string, unknown> = {};
    try {
      variables = row.variablesEncrypted ? openVariables(deps.env, row.variablesEncrypted) : {};
    } catch {
      await renderFailed(
        deps,
        row,
        "The variables could not be read (sealed under another GATEHOUSE_SECRET).",
      );
      continue;
    }
    jobs.push({ row, to: addressing.to, user: addressing.user, variables });
  }

  // Marketing emails whose category the sender chose: skip the unsubscribed and add links before rendering.
  const chosenMarketing = jobs.filter((job) => categoryChosen(job.row) === MARKETING_CATEGORY && job.user);
  const ready = await withUnsubscribeLinks(deps, project.id, chosenMarketing);
  const sendable = jobs.filter((job) => !chosenMarketing.includes(job) || ready.includes(job));

  const groups = new Map<string, Job[]>();
  for (const job of sendable) {
    const key = `${job.row.tsxSource ?? ""}\u0000${job.row.themeId ?? ""}`;
    groups.set(key, [...(groups.get(key) ?? []), job]);
  }
  for (const group of groups.values()) {
    await renderGroup(deps, project, group);
  }
}

function categoryChosen(row: SentEmailRow): NotificationCategory | undefined {
  return row.notificationCategoryId ? findCategoryById(row.notificationCategoryId) : undefined;
}

/** Skips the jobs whose user turned Marketing off; gives the others an unsubscribe link. Returns the others. */
async function withUnsubscribeLinks(deps: RenderDeps, projectId: string, jobs: Job[]): Promise<Job[]> {
  if (jobs.length === 0) return [];
  const userIds = jobs.map((job) => job.user!.id);
  const unsubscribed = await usersUnsubscribedFrom(deps.db, projectId, userIds, MARKETING_CATEGORY);
  const kept: Job[] = [];
  for (const job of jobs) {
    if (unsubscribed.has(job.user!.id)) {
      await skip(deps, job.row, "USER_UNSUBSCRIBED", { notification_category_id: MARKETING_CATEGORY.id });
      continue;
    }
    job.unsubscribeUrl = await createUnsubscribeLink(deps, projectId, job.user!.id, MARKETING_CATEGORY);
    kept.push(job);
  }
  return kept;
}

async function renderGroup(deps: RenderDeps, project: ProjectContext, jobs: Job[]): Promise<void> {
  const first = jobs[0]!.row;
  const themeId = first.themeId;
  const theme = themeId === null ? null : project.config.emails.themes[themeId];
  if (themeId !== null && !theme) {
    for (const job of jobs)
      await renderFailed(deps, job.row, `Render error: there is no email theme with id ${themeId}.`);
    return;
  }
  const renderAll = async (group: Job[]): Promise<Array<RenderedEmail | EmailRenderError>> => {
    try {
      return await renderEmailBatch(
        {
          templateSource: first.tsxSource ?? "",
          themeSource: theme ? theme.tsxSource : null,
          project: { displayName: project.displayName },
          projectLogos: project.logos,
        },
        group.map((job) => ({
          // The protocol injects these before the sender's own; only templates that declare them see them.
          variables: {
            projectDisplayName: project.displayName,
            userDisplayName: job.user?.displayName ?? "",
            ...job.variables,
          },
          user: { displayName: job.user?.displayName ?? null },
          unsubscribeLink: job.unsubscribeUrl,
        })),
      );
    } catch (error) {
      // A compile error fails every row of the group the same way.
      if (error instanceof EmailRenderError) return group.map(() => error);
      throw error;
    }
  };

  const results = await renderAll(jobs);
  const finished: Array<{ job: Job; rendered: RenderedEmail }> = [];
  const needLink: Job[] = [];
  for (const [index, job] of jobs.entries()) {
    const result = results[index]!;
    if (result instanceof EmailRenderError) {
      await renderFailed(deps, job.row, result.message);
      continue;
    }
    const category = categoryChosen(job.row) ?? categoryNamed(result.notificationCategory);
    // Learned from the template: a Marketing email to a user needs the unsubscribe link, so it is rendered again.
    if (category === MARKETING_CATEGORY && job.user && !job.unsubscribeUrl) needLink.push(job);
    else finished.push({ job, rendered: result });
  }
  if (needLink.length > 0) {
    const linked = await withUnsubscribeLinks(deps, project.id, needLink);
    const again = await renderAll(linked);
    for (const [index, job] of linked.entries()) {
      const result = again[index]!;
      if (result instanceof EmailRenderError) await renderFailed(deps, job.row, result.message);
      else finished.push({ job, rendered: result });
    }
  }
  for (const { job, rendered } of finished) await markRendered(deps, job, rendered);
}

function categoryNamed(name: string | undefined): NotificationCategory | undefined {
  return name ? findCategoryByName(name) : undefined;
}

/** A header line cannot hold line breaks; names typed by users could, so a subject is kept on one line. */
function oneLine(text: string): string {
  return text.replace(/[\r\n\t]+/g, " ").trim();
}

async function markRendered(deps: RenderDeps, job: Job, rendered: RenderedEmail): Promise<void> {
  const { row } = job;
  const category = categoryChosen(row) ?? categoryNamed(rendered.notificationCategory);
  const isTransactional = category === TRANSACTIONAL_CATEGORY;
  const message = {
    subject: oneLine(row.subjectOverride ?? rendered.subject ?? ""),
    html: rendered.html,
    text: rendered.text,
    ...(job.unsubscribeUrl ? { unsubscribeUrl: job.unsubscribeUrl } : {}),
  };
  const secrets = [...secretsOf(job.variables), ...(job.unsubscribeUrl ? [job.unsubscribeUrl] : [])];
  await fenced(deps, row, {
    status: "queued",
    to: job.to,
    ...redactMessage(message, secrets),
    bodyEncrypted: sealMessage(deps.env, message),
    notificationCategoryId: category?.id ?? null,
    isTransactional,
    priority: (row.isHighPriority ? 100 : 0) + (isTransactional ? 10 : 0),
    renderedAt: sql`now()`,
    renderError: null,
    nextAttemptAt: row.scheduledAt,
  });
}
