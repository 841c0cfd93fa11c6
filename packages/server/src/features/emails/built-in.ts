import type { RenderedConfig } from "../../config/index.ts";
import type { AppDeps } from "../../deps.ts";
import { BUILT_IN_TEMPLATE_IDS, type BuiltInTemplateType } from "../../email-rendering/index.ts";
import { getRenderedConfig } from "../projects/config-store.ts";
import type { ProjectRow } from "../projects/schema.ts";
import { enqueueRenderedEmail, enqueueTemplateEmails } from "./outbox.ts";
import type { EmailRecipient } from "./schema.ts";
import { signInAttemptsEmail } from "./templates/sign-in-attempts.tsx";

/** The messages the platform itself sends, with what each needs. `link` carries the one-time code. */
export type BuiltInEmail =
  | { kind: "email_verification"; variables: { link: string } }
  | { kind: "password_reset"; variables: { link: string } }
  | { kind: "magic_link"; variables: { link: string; otp: string } }
  | { kind: "team_invitation"; variables: { link: string; teamDisplayName: string } }
  | { kind: "sign_in_invitation"; variables: { link: string } }
  | {
      kind: "payment_receipt";
      variables: { productName: string; quantity: number; amount: string; receiptLink?: string };
    }
  | {
      kind: "payment_failed";
      variables: { productName: string; amount: string; invoiceUrl?: string; failureReason?: string };
    };

/**
 * The variables each built-in template declares (PROTOCOL-EXTRA §1.1), from what the sender knows. The sign-in
 * invitation's `teamDisplayName` is the project's name, as the protocol has it.
 */
function templateVariables(email: BuiltInEmail, projectName: string): Record<string, string | number> {
  switch (email.kind) {
    case "email_verification":
      return { emailVerificationLink: email.variables.link };
    case "password_reset":
      return { passwordResetLink: email.variables.link };
    case "magic_link":
      return { magicLink: email.variables.link, otp: email.variables.otp.toUpperCase() };
    case "team_invitation":
      return { teamInvitationLink: email.variables.link, teamDisplayName: email.variables.teamDisplayName };
    case "sign_in_invitation":
      return { signInInvitationLink: email.variables.link, teamDisplayName: projectName };
    case "payment_receipt":
    case "payment_failed":
      return { ...email.variables };
  }
}

/** A template's theme choice resolved to a theme id, or null for "no theme" (PROTOCOL-EXTRA §1.1). */
export function resolveThemeId(
  config: RenderedConfig,
  choice: string | false | null | undefined,
): string | null {
  if (choice === false) return null;
  return choice ?? config.emails.selectedThemeId;
}

/**
 * Queues a built-in email, rendered by the outbox worker from the project's template of that type: an owner who
 * edited the verification template changes the next verification email. Built-in emails are high priority and go
 * to the given address, tied to the user when there is one.
 */
export async function sendBuiltInEmail(
  deps: AppDeps,
  project: Pick<ProjectRow, "id" | "displayName">,
  input: BuiltInEmail &
    ({ to: string; userId?: string | null } | { to?: undefined; userId: string }) & {
      config?: RenderedConfig;
    },
) {
  const config = input.config ?? (await getRenderedConfig(deps, project.id));
  const templateId = BUILT_IN_TEMPLATE_IDS[input.kind satisfies BuiltInTemplateType];
  const template = config.emails.templates[templateId];
  if (!template) throw new Error(`The project's config has no ${input.kind} template.`);
  // Without an address, the user's primary email at the time the email is rendered.
  const recipient: EmailRecipient =
    input.to === undefined
      ? { type: "user-primary-email", user_id: input.userId }
      : input.userId
        ? { type: "user-custom-emails", user_id: input.userId, emails: [input.to] }
        : { type: "custom-emails", emails: [input.to] };
  const [row] = await enqueueTemplateEmails(deps, project.id, [
    {
      recipient,
      tsxSource: template.tsxSource,
      themeId: resolveThemeId(config, template.themeId),
      templateId,
      variables: templateVariables(input, project.displayName),
      isHighPriority: true,
      kind: input.kind,
    },
  ]);
  return row!;
}

/** html-to-text shouts headings in capitals by default; the plain-text part should read like the HTML one. */
const plainTextOptions = {
  selectors: [
    { selector: "h1", options: { uppercase: false } },
    { selector: "h2", options: { uppercase: false } },
  ],
};

/**
 * The "many failed sign-ins" notice to a project's owner. It is about the owner's own account, not one of the
 * project's templates, so it is rendered here with React Email and queued ready to send.
 */
export async function sendSignInAttemptsEmail(
  deps: AppDeps,
  project: Pick<ProjectRow, "id" | "displayName">,
  input: { to: string; userId?: string | null; attempts: number; windowMinutes: number },
) {
  const { subject, element } = await signInAttemptsEmail({
    projectName: project.displayName,
    attempts: input.attempts,
    windowMinutes: input.windowMinutes,
  });
  // Loaded here rather than at start (~0.06 s, ~6 MiB), like the components for this rarely sent notice.
  const { render, toPlainText } = await import("@react-email/render");
  const html = await render(element);
  return enqueueRenderedEmail(deps, project.id, {
    to: [input.to],
    subject: subject.replace(/[\r\n\t]+/g, " ").trim(),
    html,
    text: toPlainText(html, plainTextOptions),
    kind: "sign_in_attempts",
    userId: input.userId ?? null,
  });
}

/** Variables that carry a one-time secret by their name: the emailed link, the code a person types. */
const SECRET_VARIABLE = /^(link|otp|code|token)$|(Link|Url|Code|Token)$/;

/** The values the stored copy must not show (render-step.ts redacts them; body.ts says why). */
export function secretsOf(variables: Record<string, unknown>): string[] {
  return Object.entries(variables)
    .filter(([name, value]) => SECRET_VARIABLE.test(name) && typeof value === "string")
    .map(([, value]) => value as string);
}
