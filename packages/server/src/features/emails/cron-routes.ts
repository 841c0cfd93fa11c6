/**
 * The reference's cron routes for email (PROTOCOL-EXTRA §1.8, §1.12, §8.13), called with `Authorization: Bearer
 * <CRON_SECRET>`: `GET /internal/email-queue-step` works the outbox now, and `POST /internal/failed-emails-digest`
 * tells each project's owners which of its emails failed in the last day. A missing header is a SCHEMA_ERROR and a
 * wrong one a plain 401 "Unauthorized", as there; without `CRON_SECRET` every caller is refused.
 *
 * Differences, both deliberate: Gatehouse's own worker works the outbox all the time, so a queue step is one
 * rendering pass with the worker woken to deliver, rather than two minutes of passes; and the digest is really
 * sent (the reference's sending is switched off, so it answers 500 whenever there is something to send).
 */
import { z } from "zod";
import { constantTimeEqual, sha256Hex } from "../../crypto/index.ts";
import type { AppDeps } from "../../deps.ts";
import { escapeHtml } from "../../http/html.ts";
import { defineRoute, routeGroup } from "../../http/route.ts";
import { schemaError } from "../../http/schema-error.ts";
import { StatusError } from "../../http/status-error.ts";
import { failedEmailsByProject } from "./failed-digest.ts";
import { enqueueRenderedEmail } from "./outbox.ts";
import { renderDueEmails } from "./render-step.ts";

const tags = ["Emails"];
const open = routeGroup({ tags, access: "public" });
const INTERNAL_PROJECT_ID = "internal";

/** Refuses a caller without the cron secret; digests make the comparison's time independent of the token. */
function requireCronSecret(deps: AppDeps, request: Request): void {
  const header = request.headers.get("authorization");
  if (header === null) {
    throw schemaError(request.method, new URL(request.url).pathname, "headers", [
      { code: "invalid_type", expected: "string", path: ["authorization"], message: "", input: undefined },
    ] as z.core.$ZodIssue[]);
  }
  const secret = deps.env.cronSecret;
  const token = /^Bearer (.+)$/.exec(header)?.[1];
  if (!secret || !token || !constantTimeEqual(sha256Hex(token), sha256Hex(secret))) {
    throw new StatusError(401, "Unauthorized");
  }
}

const flag = z.enum(["true", "false"]).optional();

export const emailCronRoutes = [
  defineRoute({
    method: "GET",
    path: "/internal/email-queue-step",
    summary: "Work the email outbox now: render what is due, then deliver it (cron, bearer CRON_SECRET)",
    tags,
    // The cron secret is the credential.
    access: "public",
    request: { query: z.strictObject({ only_one_step: flag }) },
    response: { body: z.object({ ok: z.literal(true) }) },
    handler: async ({ deps, request }) => {
      requireCronSecret(deps, request);
      // Renders claim their rows under a lease, so this pass and the worker's own never render one email twice;
      // the worker is then woken to deliver what became due.
      await renderDueEmails(deps);
      deps.emailWorker?.wake();
      return { body: { ok: true as const } };
    },
  }),
  open.post("/internal/failed-emails-digest", {
    summary: "Email each project's owners the emails that failed in the last day (cron, bearer CRON_SECRET)",
    request: { query: z.strictObject({ dry_run: flag }) },
    response: {
      body: z.object({
        success: z.boolean(),
        error_message: z.string().optional(),
        failed_emails_by_tenancy: z.array(
          z.object({
            emails: z.array(z.object({ subject: z.string(), to: z.array(z.string()) })),
            tenant_owner_emails: z.array(z.string()),
            project_id: z.string(),
            tenancy_id: z.string(),
          }),
        ),
      }),
    },
    handler: async ({ deps, request, query }) => {
      requireCronSecret(deps, request);
      const digests = await failedEmailsByProject(deps.db, new Date(Date.now() - 24 * 3600_000));
      if (query.dry_run !== "true") {
        for (const digest of digests) {
          const lines = digest.emails.map(
            (email) => `${email.subject || "(no subject)"} to ${email.to.join(", ")}`,
          );
          await enqueueRenderedEmail(deps, INTERNAL_PROJECT_ID, {
            to: digest.ownerEmails,
            subject: `${digest.emails.length} email(s) of ${digest.projectName} failed to send`,
            text: `These emails of ${digest.projectName} (${digest.projectId}) failed in the last day:\n\n${lines.join("\n")}\n`,
            html:
              `<p>These emails of ${escapeHtml(digest.projectName)} (${escapeHtml(digest.projectId)}) failed in the last day:</p>` +
              `<ul>${lines.map((line) => `<li>${escapeHtml(line)}</li>`).join("")}</ul>`,
            kind: "failed-emails-digest",
          });
        }
      }
      return {
        body: {
          success: true,
          failed_emails_by_tenancy: digests.map((digest) => ({
            emails: digest.emails,
            tenant_owner_emails: digest.ownerEmails,
            project_id: digest.projectId,
            tenancy_id: digest.projectId,
          })),
        },
      };
    },
  }),
];
