/**
 * `/emails/outbox` (PROTOCOL-EXTRA §1.9): list, read and edit the project's queued and sent emails. An edit of the
 * content or recipient sends the email back to be rendered; pausing holds it; cancelling skips it for good.
 */
import { knownError } from "@gatehouse/shared";
import { and, desc, eq, gt, inArray, lte, or, type SQL, sql } from "drizzle-orm";
import type { PgUpdateSetSource } from "drizzle-orm/pg-core";
import { z } from "zod";
import type { AppDeps } from "../../deps.ts";
import { routeGroup } from "../../http/route.ts";
import { StatusError } from "../../http/status-error.ts";
import { openVariables, sealVariables } from "./body.ts";
import {
  OUTBOX_STATUSES,
  type OutboxStatus,
  outboxItem,
  outboxItemSchema,
  outboxStatus,
  SIMPLE_STATUSES,
  simpleStatus,
  storedStatusesFor,
} from "./outbox-view.ts";
import { type SentEmailRow, sentEmails } from "./schema.ts";

const tags = ["Emails"];
const serverOrAdmin = routeGroup({ tags, access: ["server", "admin"] });

/** The SQL condition for rows shown with this status (outbox-view.ts `outboxStatus`, in SQL). */
function statusCondition(status: OutboxStatus): SQL | undefined {
  const stored = storedStatusesFor(status);
  if (stored.length === 0) return undefined;
  const base = inArray(sentEmails.status, stored);
  switch (status) {
    case "paused":
      return and(base, eq(sentEmails.isPaused, true));
    case "scheduled":
      return and(base, eq(sentEmails.isPaused, false), gt(sentEmails.scheduledAt, sql`now()`));
    case "queued":
      return and(base, eq(sentEmails.isPaused, false), lte(sentEmails.scheduledAt, sql`now()`));
    case "preparing":
    case "rendering":
    case "render-error":
    case "sending":
      return and(base, eq(sentEmails.isPaused, false));
    default:
      return base;
  }
}

function statusFilter(statuses: readonly OutboxStatus[]): SQL {
  const conditions = statuses.map(statusCondition).filter((condition): condition is SQL => !!condition);
  return conditions.length === 0 ? sql`false` : (or(...conditions) as SQL);
}

const listQuery = z.strictObject({
  status: z.enum(OUTBOX_STATUSES).optional(),
  simple_status: z.enum(SIMPLE_STATUSES).optional(),
  // Over 100 is a plain 400, as the protocol has it, rather than a schema error.
  limit: z.coerce.number().int().min(1).optional(),
  cursor: z.uuid().optional(),
});

async function findRow(deps: AppDeps, projectId: string, id: string): Promise<SentEmailRow> {
  const [row] = await deps.db
    .select()
    .from(sentEmails)
    .where(and(eq(sentEmails.projectId, projectId), eq(sentEmails.id, id)));
  if (!row) throw new StatusError(404, `No email with id ${id}.`);
  return row;
}

const EDITABLE: ReadonlySet<OutboxStatus> = new Set([
  "paused",
  "preparing",
  "rendering",
  "render-error",
  "scheduled",
  "queued",
  "server-error",
]);

const recipientSchema = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("user-primary-email"), user_id: z.uuid() }),
  z.strictObject({
    type: z.literal("user-custom-emails"),
    user_id: z.uuid(),
    emails: z.array(z.email()).max(50),
  }),
  z.strictObject({ type: z.literal("custom-emails"), emails: z.array(z.email()).max(50) }),
]);

const patchBody = z.strictObject({
  tsx_source: z.string().max(200_000).optional(),
  theme_id: z.string().max(100).nullable().optional(),
  to: recipientSchema.optional(),
  variables: z.record(z.string(), z.json()).optional(),
  skip_deliverability_check: z.boolean().optional(),
  scheduled_at_millis: z.number().int().min(0).optional(),
  is_paused: z.boolean().optional(),
  cancel: z.literal(true).optional(),
});

function changes(
  deps: AppDeps,
  row: SentEmailRow,
  body: z.infer<typeof patchBody>,
): PgUpdateSetSource<typeof sentEmails> {
  if (body.cancel) {
    return {
      status: "skipped",
      skippedReason: "MANUALLY_CANCELLED",
      skippedDetails: {},
      skippedAt: sql`now()`,
      bodyEncrypted: null,
      variablesEncrypted: null,
    };
  }
  const set: PgUpdateSetSource<typeof sentEmails> = {};
  if (body.is_paused !== undefined) set.isPaused = body.is_paused;
  if (body.scheduled_at_millis !== undefined) {
    set.scheduledAt = new Date(body.scheduled_at_millis);
    if (row.status === "queued") set.nextAttemptAt = set.scheduledAt;
  }
  const rerender =
    body.tsx_source !== undefined ||
    body.theme_id !== undefined ||
    body.to !== undefined ||
    body.variables !== undefined;
  if (rerender) {
    if (body.tsx_source !== undefined) set.tsxSource = body.tsx_source;
    if (body.theme_id !== undefined) set.themeId = body.theme_id;
    if (body.to !== undefined) {
      set.recipient = body.to;
      set.to = body.to.type === "user-primary-email" ? [] : body.to.emails;
      set.userId = body.to.type === "custom-emails" ? null : body.to.user_id;
    }
    if (body.variables !== undefined) set.variablesEncrypted = sealVariables(deps.env, body.variables);
    else if (row.variablesEncrypted) {
      // Kept as they are; re-sealed only to check they still open under this server's secret.
      set.variablesEncrypted = sealVariables(deps.env, openVariables(deps.env, row.variablesEncrypted));
    }
    Object.assign(set, {
      status: "preparing",
      nextAttemptAt: sql`now()`,
      bodyEncrypted: null,
      subject: "",
      html: "",
      text: "",
      renderedAt: null,
      renderError: null,
      startedRenderingAt: null,
      startedSendingAt: null,
      failedAt: null,
      error: null,
      attempts: 0,
      sendAttemptErrors: null,
    } satisfies PgUpdateSetSource<typeof sentEmails>);
  }
  return set;
}

export const outboxRoutes = [
  serverOrAdmin.get("/emails/outbox", {
    summary: "List the project's outbox, newest first, optionally by status",
    request: { query: listQuery },
    response: {
      body: z.object({
        items: z.array(outboxItemSchema),
        is_paginated: z.literal(true),
        pagination: z.object({ next_cursor: z.string().nullable() }),
      }),
    },
    handler: async ({ deps, auth, query }) => {
      const limit = query.limit ?? 100;
      if (limit > 100) throw new StatusError(400, "limit may be at most 100.");
      const conditions: SQL[] = [eq(sentEmails.projectId, auth.project.id)];
      if (query.status) conditions.push(statusFilter([query.status]));
      if (query.simple_status) {
        conditions.push(statusFilter(OUTBOX_STATUSES.filter((s) => simpleStatus(s) === query.simple_status)));
      }
      if (query.cursor) {
        const [start] = await deps.db
          .select({ id: sentEmails.id })
          .from(sentEmails)
          .where(and(eq(sentEmails.projectId, auth.project.id), eq(sentEmails.id, query.cursor)));
        if (!start) throw new StatusError(400, `The cursor ${query.cursor} names no email.`);
        // Compared in SQL: PostgreSQL keeps microseconds that a JavaScript Date would round away.
        conditions.push(
          sql`(${sentEmails.createdAt}, ${sentEmails.id}) <= (select s.created_at, s.id from ${sentEmails} s where s.id = ${query.cursor})`,
        );
      }
      const rows = await deps.db
        .select()
        .from(sentEmails)
        .where(and(...conditions))
        .orderBy(desc(sentEmails.createdAt), desc(sentEmails.id))
        .limit(limit + 1);
      const next = rows.length > limit ? rows[limit]!.id : null;
      return {
        body: {
          items: rows.slice(0, limit).map((row) => outboxItem(deps.env, row)),
          is_paginated: true,
          pagination: { next_cursor: next },
        },
      };
    },
  }),
  serverOrAdmin.get("/emails/outbox/:id", {
    summary: "Read one email of the outbox",
    request: { params: z.strictObject({ id: z.uuid() }) },
    response: { body: outboxItemSchema },
    handler: async ({ deps, auth, params }) => ({
      body: outboxItem(deps.env, await findRow(deps, auth.project.id, params.id)),
    }),
  }),
  serverOrAdmin.patch("/emails/outbox/:id", {
    summary: "Pause, reschedule, cancel or change an email that has not been sent",
    request: { params: z.strictObject({ id: z.uuid() }), body: patchBody },
    response: { body: outboxItemSchema },
    handler: async ({ deps, auth, params, body }) => {
      const row = await findRow(deps, auth.project.id, params.id);
      if (!EDITABLE.has(outboxStatus(row))) {
        throw knownError("EMAIL_NOT_EDITABLE", { email_id: row.id, status: row.status.toUpperCase() });
      }
      const set = changes(deps, row, body);
      if (Object.keys(set).length > 0) {
        // Only while the row is still in the state that was checked: a worker may have moved it meanwhile.
        const [updated] = await deps.db
          .update(sentEmails)
          .set({ ...set, updatedAt: sql`now()` })
          .where(
            and(
              eq(sentEmails.projectId, row.projectId),
              eq(sentEmails.id, row.id),
              eq(sentEmails.status, row.status),
              eq(sentEmails.attempts, row.attempts),
            ),
          )
          .returning();
        if (!updated) {
          const now = await findRow(deps, auth.project.id, params.id);
          throw knownError("EMAIL_NOT_EDITABLE", { email_id: now.id, status: now.status.toUpperCase() });
        }
        if (set.status === "preparing" || body.is_paused === false) deps.emailWorker?.wake();
        return { body: outboxItem(deps.env, updated) };
      }
      return { body: outboxItem(deps.env, row) };
    },
  }),
];
