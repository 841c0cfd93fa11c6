import { render, toPlainText } from "@react-email/render";
import type { AppDeps } from "../../deps.ts";
import type { ProjectRow } from "../projects/schema.ts";
import { enqueueEmail } from "./outbox.ts";
import { emailVerificationEmail } from "./templates/email-verification.tsx";
import type { TemplateOutput } from "./templates/layout.tsx";
import { magicLinkEmail } from "./templates/magic-link.tsx";
import { passwordResetEmail } from "./templates/password-reset.tsx";
import { signInAttemptsEmail } from "./templates/sign-in-attempts.tsx";
import { signInInvitationEmail } from "./templates/sign-in-invitation.tsx";
import { teamInvitationEmail } from "./templates/team-invitation.tsx";

/** The messages the platform itself sends, with what each needs to be rendered. */
export type BuiltInEmail =
  | { kind: "email_verification"; variables: { link: string } }
  | { kind: "password_reset"; variables: { link: string } }
  | { kind: "magic_link"; variables: { link: string; otp: string } }
  | { kind: "team_invitation"; variables: { link: string; teamDisplayName: string } }
  | { kind: "sign_in_invitation"; variables: { link: string } }
  | { kind: "sign_in_attempts"; variables: { attempts: number; windowMinutes: number } };

export type RenderedEmail = { subject: string; html: string; text: string };

function builtInTemplate(projectName: string, email: BuiltInEmail): TemplateOutput {
  switch (email.kind) {
    case "email_verification":
      return emailVerificationEmail({ projectName, ...email.variables });
    case "password_reset":
      return passwordResetEmail({ projectName, ...email.variables });
    case "magic_link":
      return magicLinkEmail({ projectName, ...email.variables });
    case "team_invitation":
      return teamInvitationEmail({ projectName, ...email.variables });
    case "sign_in_invitation":
      return signInInvitationEmail({ projectName, ...email.variables });
    case "sign_in_attempts":
      return signInAttemptsEmail({ projectName, ...email.variables });
  }
}

/** html-to-text shouts headings in capitals by default; the plain-text part should read like the HTML one. */
const plainTextOptions = {
  selectors: [
    { selector: "h1", options: { uppercase: false } },
    { selector: "h2", options: { uppercase: false } },
  ],
};

/**
 * A header line cannot hold line breaks; names typed by users could, so a subject is kept on one line (mail
 * libraries fold or reject them too, but the stored subject should already be what is sent).
 */
function oneLine(text: string): string {
  return text.replace(/[\r\n\t]+/g, " ").trim();
}

/** Renders a built-in message for a project to HTML (React Email) and plain text. */
export async function renderBuiltInEmail(
  project: Pick<ProjectRow, "displayName">,
  email: BuiltInEmail,
): Promise<RenderedEmail> {
  const { subject, element } = builtInTemplate(project.displayName, email);
  const html = await render(element);
  return { subject: oneLine(subject), html, text: toPlainText(html, plainTextOptions) };
}

/** Variables that carry a one-time secret by their name: the emailed link, the code a person types. */
const SECRET_VARIABLE = /^(link|otp|code|token)$|(Link|Url|Code|Token)$/;

/** The values the stored copy must not show (outbox.ts redacts them; body.ts says why). */
export function secretsOf(variables: Record<string, unknown>): string[] {
  return Object.entries(variables)
    .filter(([name, value]) => SECRET_VARIABLE.test(name) && typeof value === "string")
    .map(([, value]) => value as string);
}

/** Renders a built-in message and puts it in the outbox. */
export async function sendBuiltInEmail(
  deps: AppDeps,
  project: Pick<ProjectRow, "id" | "displayName">,
  input: BuiltInEmail & { to: string; userId?: string | null },
) {
  const rendered = await renderBuiltInEmail(project, input);
  return enqueueEmail(deps, project.id, {
    to: [input.to],
    ...rendered,
    kind: input.kind,
    userId: input.userId ?? null,
    secrets: secretsOf(input.variables),
  });
}
