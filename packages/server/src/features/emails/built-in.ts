import type { AppDeps } from "../../deps.ts";
import type { ProjectRow } from "../projects/schema.ts";
import { enqueueEmail } from "./outbox.ts";

/** The messages the platform itself sends, with what each needs to be rendered. */
export type BuiltInEmail =
  | { kind: "email_verification"; variables: { link: string } }
  | { kind: "password_reset"; variables: { link: string } }
  | { kind: "magic_link"; variables: { link: string; otp: string } }
  | { kind: "team_invitation"; variables: { link: string; teamDisplayName: string } }
  | { kind: "sign_in_invitation"; variables: { link: string } };

export type RenderedEmail = { subject: string; html: string; text: string };

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

/**
 * Renders a built-in message for a project. (Plain first version; the email feature replaces the bodies with
 * React Email components and themes while keeping this signature and these subjects.)
 */
export async function renderBuiltInEmail(
  project: Pick<ProjectRow, "displayName">,
  email: BuiltInEmail,
): Promise<RenderedEmail> {
  const name = project.displayName;
  const v = email.variables;
  const [subject, intro, action] = (() => {
    switch (email.kind) {
      case "email_verification":
        return [
          `Verify your email at ${name}`,
          `Please verify your email address for ${name}.`,
          "Verify email",
        ];
      case "password_reset":
        return [
          `Reset your password at ${name}`,
          `Someone asked to reset the password of your ${name} account.`,
          "Reset password",
        ];
      case "magic_link": {
        const otp = (v as { otp: string }).otp.toUpperCase();
        return [
          `Sign in to ${name}: Your code is ${otp}`,
          `Your sign-in code for ${name} is ${otp}.`,
          "Sign in",
        ];
      }
      case "team_invitation": {
        const team = (v as { teamDisplayName: string }).teamDisplayName;
        return [
          `You have been invited to join ${team} on ${name}`,
          `You have been invited to join the team ${team} on ${name}.`,
          "Join team",
        ];
      }
      case "sign_in_invitation":
        return [
          `You have been invited to sign in to ${name}`,
          `You have been invited to sign in to ${name}.`,
          "Sign in",
        ];
    }
  })();
  const html = `<p>${escapeHtml(intro)}</p><p><a href="${escapeHtml(v.link)}">${escapeHtml(action)}</a></p>`;
  const text = `${intro}\n\n${action}: ${v.link}\n`;
  return { subject, html, text };
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
  });
}
