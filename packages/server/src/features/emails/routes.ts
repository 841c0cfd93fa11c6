import { desc, eq } from "drizzle-orm";
import { z } from "zod";
import { escapeHtml } from "../../http/html.ts";
import { defineRoute } from "../../http/route.ts";
import { consumeRateLimit, rateLimitScope } from "../../rate-limit/limiter.ts";
import { RATE_LIMITS } from "../../rate-limit/rules.ts";
import { type SentEmailRow, sentEmails } from "./schema.ts";
import { smtpOptionsFromSettings, trySendOnce } from "./transport.ts";

const tags = ["Emails"];

const sentEmailSchema = z.object({
  id: z.string(),
  to: z.array(z.string()),
  subject: z.string(),
  sent_at_millis: z.number().nullable(),
  error: z.string().nullable(),
  status: z.enum(["queued", "sending", "sent", "failed"]),
  created_at_millis: z.number(),
  kind: z.string(),
});

function toView(row: SentEmailRow) {
  return {
    id: row.id,
    to: row.to,
    subject: row.subject,
    sent_at_millis: row.sentAt?.getTime() ?? null,
    error: row.error,
    status: row.status,
    created_at_millis: row.createdAt.getTime(),
    kind: row.kind,
  };
}

/** The synchronous test send may take this long in total; each SMTP step gets a shorter timeout of its own. */
const TEST_EMAIL_DEADLINE_MS = 10_000;
const TEST_EMAIL_STEP_TIMEOUT_MS = 8_000;

export const emailRoutes = [
  defineRoute({
    method: "GET",
    path: "/internal/emails",
    summary: "List the project's sent and queued emails, newest first, with their delivery state",
    tags,
    access: ["admin"],
    request: {
      query: z.strictObject({ limit: z.coerce.number().int().min(1).max(500).optional() }),
    },
    response: { body: z.object({ items: z.array(sentEmailSchema), is_paginated: z.literal(false) }) },
    handler: async ({ deps, auth, query }) => {
      const rows = await deps.db
        .select()
        .from(sentEmails)
        .where(eq(sentEmails.projectId, auth.project.id))
        .orderBy(desc(sentEmails.createdAt), desc(sentEmails.id))
        .limit(query.limit ?? 100);
      return { body: { items: rows.map(toView), is_paginated: false } };
    },
  }),
  defineRoute({
    method: "POST",
    path: "/internal/send-test-email",
    summary: "Send a test email through the given SMTP settings and report whether it worked",
    tags,
    access: ["admin"],
    request: {
      body: z.strictObject({
        recipient_email: z.email(),
        email_config: z.strictObject({
          host: z.string().trim().min(1).max(255),
          port: z.number().int().min(1).max(65535),
          username: z.string().max(255).optional(),
          password: z.string().max(1000).optional(),
          sender_email: z.email(),
          sender_name: z.string().max(200),
        }),
      }),
    },
    response: {
      body: z.object({ success: z.boolean(), error_message: z.string().optional() }),
    },
    handler: async ({ deps, auth, body, clientIp }) => {
      // The call makes this server open a connection to any host and port: keep it from becoming a scanner.
      await consumeRateLimit(rateLimitScope(deps, auth, clientIp), RATE_LIMITS.emailPerIp, clientIp);
      const config = body.email_config;
      const projectName = auth.project.displayName;
      const result = await trySendOnce(
        smtpOptionsFromSettings(config, {
          connectionTimeout: TEST_EMAIL_STEP_TIMEOUT_MS,
          greetingTimeout: TEST_EMAIL_STEP_TIMEOUT_MS,
          socketTimeout: TEST_EMAIL_STEP_TIMEOUT_MS,
        }),
        {
          from: { name: config.sender_name || projectName, address: config.sender_email },
          to: [body.recipient_email],
          subject: `Test email from ${projectName}`.replace(/[\r\n\t]+/g, " "),
          text: `This is a test email from ${projectName}. Your email server settings work.`,
          html: `<p>This is a test email from ${escapeHtml(projectName)}. Your email server settings work.</p>`,
        },
        TEST_EMAIL_DEADLINE_MS,
      );
      return {
        body: result.success ? { success: true } : { success: false, error_message: result.errorMessage },
      };
    },
  }),
];
