import type { WireTestEmailResult } from "@gatehouse/shared";
import { desc, eq } from "drizzle-orm";
import { z } from "zod";
import { assertTrustedCallbackUrl } from "../../config/trusted-urls.ts";
import { normalizeEmail } from "../../fields/email.ts";
import { escapeHtml } from "../../http/html.ts";
import { routeGroup } from "../../http/route.ts";
import { wire } from "../../http/wire-schema.ts";
import { consumeRateLimit, rateLimitScope } from "../../rate-limit/limiter.ts";
import { RATE_LIMITS } from "../../rate-limit/rules.ts";
import { sendBuiltInEmail } from "./built-in.ts";
import { capacityRoutes } from "./capacity-routes.ts";
import { devInboxRoute } from "./dev-inbox.ts";
import { outboxRoutes } from "./outbox-routes.ts";
import { OUTBOX_STATUSES, SIMPLE_STATUSES, sentEmailListItem } from "./outbox-view.ts";
import { sentEmails } from "./schema.ts";
import { sendEmailRoute } from "./send-email.ts";
import { smtpOptionsFromSettings, trySendOnce } from "./transport.ts";
import { unsubscribeRoutes } from "./unsubscribe.ts";

const tags = ["Emails"];
const serverOrAdmin = routeGroup({ tags, access: ["server", "admin"] });
const admin = routeGroup({ tags, access: ["admin"] });

const sentEmailSchema = z.object({
  id: z.string(),
  subject: z.string(),
  sent_at_millis: z.number(),
  to: z.array(z.string()),
  error: z.string().nullable(),
  // Gatehouse's additions: where the email is in the outbox, and what made it.
  status: z.enum(OUTBOX_STATUSES),
  simple_status: z.enum(SIMPLE_STATUSES),
  attempts: z.number(),
  skipped_reason: z.string().nullable(),
  created_at_millis: z.number(),
  kind: z.string(),
});

/** The synchronous test send may take this long in total; each SMTP step gets a shorter timeout of its own. */
const TEST_EMAIL_DEADLINE_MS = 10_000;
const TEST_EMAIL_STEP_TIMEOUT_MS = 8_000;

export const emailRoutes = [
  sendEmailRoute,
  ...outboxRoutes,
  ...capacityRoutes,
  ...unsubscribeRoutes,
  devInboxRoute,
  serverOrAdmin.post("/internal/send-sign-in-invitation", {
    summary: "Email an invitation to sign in, with a link to the given callback URL",
    request: {
      body: z.strictObject({ email: z.email().max(254), callback_url: z.url().max(2000) }),
    },
    response: { body: z.object({ success: z.literal(true) }) },
    handler: async ({ deps, auth, body, clientIp }) => {
      assertTrustedCallbackUrl(auth.config, body.callback_url);
      const limits = rateLimitScope(deps, auth, clientIp);
      const email = normalizeEmail(body.email);
      await consumeRateLimit(limits, RATE_LIMITS.emailPerRecipient, email);
      await sendBuiltInEmail(deps, auth.project, {
        kind: "sign_in_invitation",
        to: email,
        config: auth.config,
        variables: { link: body.callback_url },
      });
      return { body: { success: true } };
    },
  }),
  admin.get("/internal/emails", {
    summary: "List the project's sent and queued emails, newest first, with their delivery state",
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
      return { body: { items: rows.map(sentEmailListItem), is_paginated: false } };
    },
  }),
  admin.post("/internal/send-test-email", {
    summary: "Send a test email through the given SMTP settings and report whether it worked",
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
      body: wire<WireTestEmailResult>()(
        z.object({ success: z.boolean(), error_message: z.string().optional() }),
      ),
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
