/**
 * `POST /internal/feedback` (PROTOCOL-EXTRA §6.6, §8.13): a user's feedback or bug report, emailed to the server's
 * operators (`STACK_INTERNAL_FEEDBACK_RECIPIENTS`). Credentials are optional: with none it is sent from the internal
 * project; with any access type, from the caller's project, naming the caller's user. Anyone may call it, so it
 * counts against the per-IP email limit like every other route that sends mail on an anonymous caller's behalf.
 */
import { z } from "zod";
import { emailField, normalizeEmail } from "../../fields/email.ts";
import { storableText } from "../../fields/text.ts";
import { escapeHtml } from "../../http/html.ts";
import { resolveRequestAuth } from "../../http/request-auth.ts";
import { defineRoute } from "../../http/route.ts";
import { consumeRateLimit, rateLimitScope } from "../../rate-limit/limiter.ts";
import { RATE_LIMITS } from "../../rate-limit/rules.ts";
import { enqueueRenderedEmail } from "../emails/outbox.ts";
import { getRenderedConfig } from "../projects/config-store.ts";

const INTERNAL_PROJECT_ID = "internal";
const LABELS = { feedback: "Feedback", bug: "Bug Report" } as const;

export const feedbackRoutes = [
  defineRoute({
    method: "POST",
    path: "/internal/feedback",
    summary: "Send feedback or a bug report to the server's operators",
    tags: ["System"],
    // Credentials are optional and read by the handler: none means the internal project.
    access: "public",
    request: {
      body: z.strictObject({
        name: storableText(100).optional(),
        email: emailField,
        message: storableText(5000).pipe(z.string().trim().min(1)),
        feedback_type: z.enum(["feedback", "bug"]).optional(),
      }),
    },
    response: { body: z.object({ success: z.literal(true) }) },
    handler: async ({ deps, request, body, clientIp }) => {
      const auth = await resolveRequestAuth(deps, request.headers);
      const project = auth
        ? { project: auth.project, config: auth.config }
        : {
            project: { id: INTERNAL_PROJECT_ID },
            config: await getRenderedConfig(deps, INTERNAL_PROJECT_ID),
          };
      await consumeRateLimit(rateLimitScope(deps, project, clientIp), RATE_LIMITS.emailPerIp, clientIp);
      const recipients = (deps.env.internalFeedbackRecipients ?? []).map(normalizeEmail);
      if (recipients.length === 0) return { body: { success: true as const } };

      const label = LABELS[body.feedback_type ?? "feedback"];
      const facts: [string, string][] = [
        ["From", body.name ? `${body.name} <${body.email}>` : body.email],
        ["Project", project.project.id],
        ["User", auth?.user?.id ?? "none"],
      ];
      const text = `${facts.map(([name, value]) => `${name}: ${value}`).join("\n")}\n\n${body.message}\n`;
      const html =
        `<h2>${escapeHtml(label)}</h2>` +
        facts.map(([name, value]) => `<p><b>${escapeHtml(name)}:</b> ${escapeHtml(value)}</p>`).join("") +
        `<pre style="white-space:pre-wrap">${escapeHtml(body.message)}</pre>`;
      await enqueueRenderedEmail(deps, project.project.id, {
        to: recipients,
        subject: `[${label}] ${body.email}`,
        html,
        text,
        kind: "internal-feedback",
        userId: auth?.user?.id ?? null,
      });
      return { body: { success: true as const } };
    },
  }),
];
