/**
 * `POST /emails/send-email` (PROTOCOL-EXTRA §1.7): one request queues an email per user, from raw HTML, one of
 * the project's templates or one of its email drafts (which is then marked sent). It only queues; the outbox
 * worker renders each one with its user (skipping those who turned the category off or have no address) and
 * delivers them.
 */
import type { WireSendEmailResult } from "@gatehouse/shared";
import { knownError } from "@gatehouse/shared";
import { and, eq, inArray } from "drizzle-orm";
import { z } from "zod";
import type { AppDeps } from "../../deps.ts";
import { HTML_EMAIL_TEMPLATE_SOURCE } from "../../email-rendering/index.ts";
import type { RequestAuth } from "../../http/request-auth.ts";
import { defineRoute } from "../../http/route.ts";
import { schemaError } from "../../http/schema-error.ts";
import { StatusError } from "../../http/status-error.ts";
import { wire } from "../../http/wire-schema.ts";
import { draftForSending, markDraftSent } from "../email-drafts/service.ts";
import { findCategoryByName } from "../notifications/categories.ts";
import { users } from "../users/schema.ts";
import { resolveThemeId } from "./built-in.ts";
import { enqueueTemplateEmails } from "./outbox.ts";

/** One request may name this many users; `all_users` has no limit. */
const MAX_USER_IDS = 10_000;

const themeChoice = z.union([z.uuid(), z.literal(false), z.null()]);

export const sendEmailBody = z.strictObject({
  user_ids: z.array(z.uuid()).max(MAX_USER_IDS).optional(),
  all_users: z.literal(true).optional(),
  subject: z.string().max(998).optional(),
  notification_category_name: z.string().max(100).optional(),
  theme_id: themeChoice.optional(),
  is_high_priority: z.boolean().optional(),
  scheduled_at_millis: z.number().int().min(0).optional(),
  html: z.string().max(1_000_000).optional(),
  template_id: z.uuid().optional(),
  variables: z.record(z.string(), z.json()).optional(),
  draft_id: z.string().max(100).optional(),
});
type SendEmailBody = z.infer<typeof sendEmailBody>;

const PATH = "/emails/send-email";

/** The combinations a flat schema cannot express, reported as the schema error they are. */
function checkShape(body: SendEmailBody): void {
  const problems: z.core.$ZodIssue[] = [];
  const issue = (path: string, message: string) =>
    problems.push({ code: "custom", path: [path], message, input: undefined } as z.core.$ZodIssue);
  if ((body.user_ids === undefined) === (body.all_users === undefined)) {
    issue("user_ids", "give either user_ids or all_users: true, not both or neither");
  }
  const variants = [body.html, body.template_id, body.draft_id].filter((value) => value !== undefined).length;
  if (variants !== 1) issue("html", "give exactly one of html, template_id or draft_id");
  if (body.variables !== undefined && body.template_id === undefined) {
    issue("variables", "variables go with template_id");
  }
  if (problems.length > 0) throw schemaError("POST", PATH, "body", problems);
}

async function recipientIds(deps: AppDeps, projectId: string, body: SendEmailBody): Promise<string[]> {
  if (body.all_users) {
    const rows = await deps.db
      .select({ id: users.id })
      .from(users)
      .where(eq(users.projectId, projectId))
      .orderBy(users.signedUpAt, users.id);
    return rows.map((row) => row.id);
  }
  const requested = [...new Set(body.user_ids ?? [])];
  if (requested.length === 0) return [];
  const found = await deps.db
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.projectId, projectId), inArray(users.id, requested)));
  const known = new Set(found.map((row) => row.id));
  const missing = requested.find((id) => !known.has(id));
  if (missing) throw knownError("USER_ID_DOES_NOT_EXIST", { user_id: missing });
  return requested;
}

export async function sendEmail(deps: AppDeps, auth: RequestAuth, body: SendEmailBody) {
  const { config, project } = auth;
  if (config.emails.server.isShared) throw knownError("REQUIRES_CUSTOM_EMAIL_SERVER");
  checkShape(body);
  const category =
    body.notification_category_name === undefined
      ? undefined
      : findCategoryByName(body.notification_category_name);
  if (body.notification_category_name !== undefined && !category) {
    throw new StatusError(400, `Unknown notification category "${body.notification_category_name}".`);
  }
  const draft =
    body.draft_id === undefined ? undefined : await draftForSending(deps, project.id, body.draft_id);
  if (body.draft_id !== undefined && !draft) {
    throw new StatusError(400, `No email draft with id ${body.draft_id}.`);
  }
  const template = body.template_id === undefined ? undefined : config.emails.templates[body.template_id];
  if (body.template_id !== undefined && !template) {
    throw new StatusError(400, `No email template with id ${body.template_id}.`);
  }
  // A draft goes out in its own theme choice unless the request names one (PROTOCOL-EXTRA §1.7, variant C).
  const themeChoice = body.theme_id === undefined && draft ? draft.themeChoice : body.theme_id;
  if (typeof themeChoice === "string" && !config.emails.themes[themeChoice]) {
    throw new StatusError(400, `No email theme with id ${themeChoice}.`);
  }
  const userIds = await recipientIds(deps, project.id, body);
  const themeId = resolveThemeId(config, themeChoice);
  const content = draft
    ? { tsxSource: draft.tsxSource, variables: {}, kind: "draft" }
    : template
      ? { tsxSource: template.tsxSource, variables: body.variables ?? {}, kind: "template" }
      : { tsxSource: HTML_EMAIL_TEMPLATE_SOURCE, variables: { html: body.html ?? "" }, kind: "html" };
  await enqueueTemplateEmails(
    deps,
    project.id,
    userIds.map((userId) => ({
      recipient: { type: "user-primary-email" as const, user_id: userId },
      ...content,
      themeId,
      templateId: body.template_id ?? null,
      draftId: draft?.id ?? null,
      subjectOverride: body.subject ?? null,
      notificationCategoryId: category?.id ?? null,
      isHighPriority: body.is_high_priority ?? false,
      ...(body.scheduled_at_millis !== undefined ? { scheduledAt: new Date(body.scheduled_at_millis) } : {}),
    })),
  );
  if (draft) await markDraftSent(deps, project.id, draft.id);
  return { results: userIds.map((userId) => ({ user_id: userId })) };
}

export const sendEmailRoute = defineRoute({
  method: "POST",
  path: PATH,
  summary: "Queue an email (HTML, a template or a draft) to some or all of the project's users",
  tags: ["Emails"],
  access: ["server", "admin"],
  request: { body: sendEmailBody },
  response: {
    body: wire<WireSendEmailResult>()(z.object({ results: z.array(z.object({ user_id: z.string() })) })),
  },
  handler: async ({ deps, auth, body }) => ({ body: await sendEmail(deps, auth, body) }),
});
