/**
 * The owners' own development inbox. With no email server, a project's mail stays in its dev outbox, which its
 * owner reads on the dashboard; but the dashboard's own mail (the internal project's: "Verify your email", a
 * sign-in code, a password reset for an owner) has no owner to read it there. So, on a development server only:
 * each such email is also written to the server log with its links, and `GET /internal/dev-inbox` gives a signed-in
 * owner the mail sent to them, which the dashboard shows on the account settings page.
 */
import type { WireDevInbox } from "@gatehouse/shared";
import { and, desc, eq, isNotNull } from "drizzle-orm";
import { z } from "zod";
import type { AppDeps } from "../../deps.ts";
import { requireUser } from "../../http/current-user.ts";
import { defineRoute } from "../../http/route.ts";
import { StatusError } from "../../http/status-error.ts";
import { wire } from "../../http/wire-schema.ts";
import { INTERNAL_PROJECT } from "../projects/service.ts";
import { type EmailMessage, LINK_WITH_PARAMETERS, openMessage } from "./body.ts";
import { sentEmails } from "./schema.ts";
import { resolveDelivery } from "./transport.ts";

/** The newest this many: an owner looks for the mail just sent, not an archive. */
const SHOWN = 20;

/** The links a person would follow in the message, from its plain text (the HTML's when there is none). */
export function linksIn(message: Pick<EmailMessage, "text" | "html">): string[] {
  const source = message.text || message.html.replaceAll("&amp;", "&");
  return [...new Set(source.match(LINK_WITH_PARAMETERS) ?? [])];
}

/**
 * Writes an internal-project email that only reached the dev outbox to the log, links included, so an owner with
 * no email server can finish signing up or reset their dashboard password from the terminal. Development only:
 * production keeps no secret anywhere (DESIGN.md, secrets at rest).
 */
export function logOwnDevEmail(
  deps: Pick<AppDeps, "env" | "observability">,
  row: { projectId: string; to: string[] },
  message: EmailMessage,
): void {
  if (!deps.env.isDevelopment || row.projectId !== INTERNAL_PROJECT) return;
  const links = linksIn(message);
  deps.observability.logger.info(
    `Dashboard email (no email server, so it is kept here and on the account settings page): ` +
      `"${message.subject}" to ${row.to.join(", ")}${links.length ? `; open ${links.join(" ")}` : ""}`,
  );
}

const itemSchema = z.object({
  id: z.string(),
  subject: z.string(),
  to: z.array(z.string()),
  text: z.string(),
  html: z.string(),
  kind: z.string(),
  created_at_millis: z.number(),
});

export const devInboxRoute = defineRoute({
  method: "GET",
  path: "/internal/dev-inbox",
  summary:
    "The dashboard's mail to the signed-in owner, on a development server with no email server (Gatehouse)",
  tags: ["Emails"],
  access: ["client"],
  response: {
    body: wire<WireDevInbox>()(z.object({ is_available: z.boolean(), items: z.array(itemSchema) })),
  },
  handler: async ({ deps, auth }) => {
    if (auth.project.id !== INTERNAL_PROJECT) {
      throw new StatusError(
        404,
        "The development inbox is the dashboard's: it exists on the internal project only.",
      );
    }
    const user = requireUser(auth);
    const available =
      deps.env.isDevelopment &&
      resolveDelivery(deps.env, auth.project.displayName, auth.config.emails.server).kind === "dev-outbox";
    if (!available) return { body: { is_available: false, items: [] } };
    const rows = await deps.db
      .select()
      .from(sentEmails)
      .where(
        and(
          eq(sentEmails.projectId, INTERNAL_PROJECT),
          eq(sentEmails.userId, user.id),
          eq(sentEmails.transport, "dev-outbox"),
          isNotNull(sentEmails.bodyEncrypted),
        ),
      )
      .orderBy(desc(sentEmails.createdAt), desc(sentEmails.id))
      .limit(SHOWN);
    const items = rows.flatMap((row) => {
      let message: EmailMessage;
      try {
        message = openMessage(deps.env, row.bodyEncrypted!);
      } catch {
        return []; // sealed under another GATEHOUSE_SECRET: nothing readable to show
      }
      return [
        {
          id: row.id,
          subject: message.subject,
          to: row.to,
          text: message.text,
          html: message.html,
          kind: row.kind,
          created_at_millis: row.createdAt.getTime(),
        },
      ];
    });
    return { body: { is_available: true, items } };
  },
});
