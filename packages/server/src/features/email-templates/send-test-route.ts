/**
 * `POST /internal/email-templates/{id}/send-test` (a Gatehouse extension for the dashboard's editor): sends what
 * the preview shows, the template as being edited (saved or not) in its theme with the preview's variables, to one
 * address, through the project's own email server. It is rendered here, in preview mode, so that a template that
 * does not render is a 400 at once rather than an entry in the sent list; then it is queued ready to send.
 */
import type { WireTestEmailQueued } from "@gatehouse/shared";
import { z } from "zod";
import { themeSourceFor } from "../../email-rendering/index.ts";
import { normalizeEmail } from "../../fields/email.ts";
import { metadataField } from "../../fields/metadata.ts";
import { defineRoute } from "../../http/route.ts";
import { StatusError } from "../../http/status-error.ts";
import { wire } from "../../http/wire-schema.ts";
import { consumeRateLimit, rateLimitScope } from "../../rate-limit/limiter.ts";
import { RATE_LIMITS } from "../../rate-limit/rules.ts";
import { enqueueRenderedEmail } from "../emails/outbox.ts";
import {
  findTheme,
  previewTenant,
  projectLogosOf,
  renderOr400,
  requireCustomEmailServer,
  tags,
  templateOr404,
  tsxSourceField,
} from "./shared.ts";

const themeChoice = z.union([z.uuid(), z.literal(false), z.null()]);

export const sendTestRoute = defineRoute({
  method: "POST",
  path: "/internal/email-templates/:template_id/send-test",
  summary: "Send a template, as the editor previews it, to one address (Gatehouse extension)",
  tags,
  access: ["admin"],
  request: {
    params: z.strictObject({ template_id: z.uuid() }),
    body: z.strictObject({
      recipient_email: z.email().max(254),
      tsx_source: tsxSourceField.optional(),
      theme_id: themeChoice.optional(),
      variables: metadataField.pipe(z.record(z.string(), z.unknown())).optional(),
    }),
  },
  response: { body: wire<WireTestEmailQueued>()(z.object({ email_id: z.string() })) },
  handler: async ({ deps, auth, params, body, clientIp }) => {
    const { config, project } = auth;
    requireCustomEmailServer(config);
    const template = templateOr404(config, params.template_id);
    const recipient = normalizeEmail(body.recipient_email);
    const limits = rateLimitScope(deps, auth, clientIp);
    await consumeRateLimit(limits, RATE_LIMITS.emailPerIp, clientIp);
    await consumeRateLimit(limits, RATE_LIMITS.emailPerRecipient, recipient);
    const chosenTheme = body.theme_id !== undefined ? body.theme_id : template.themeId;
    if (typeof chosenTheme === "string" && !findTheme(config, chosenTheme)) {
      throw new StatusError(400, `No email theme with id ${chosenTheme}.`);
    }
    const rendered = await renderOr400({
      tenant: previewTenant(project.id),
      templateSource: body.tsx_source ?? template.tsxSource,
      themeSource: themeSourceFor(config, chosenTheme),
      preview: true,
      project: { displayName: project.displayName },
      ...(body.variables !== undefined ? { variables: body.variables } : {}),
      projectLogos: projectLogosOf(project),
    });
    const row = await enqueueRenderedEmail(deps, project.id, {
      to: [recipient],
      subject: `[Test] ${rendered.subject ?? template.displayName}`.replace(/[\r\n\t]+/g, " "),
      html: rendered.html,
      text: rendered.text,
      kind: "template_test",
    });
    return { body: { email_id: row.id } };
  },
});
