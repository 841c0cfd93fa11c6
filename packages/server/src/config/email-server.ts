/**
 * What the schema cannot say about `emails.server`, checked when a config is written (config/render.ts
 * `validateLevelOverride`): a provider this server cannot send through is refused there, in words, rather than
 * accepted and then failing every email. Stored configs are not re-checked when read, so a project saved before
 * this check still renders; its emails then fail with the same words (features/emails/transport.ts).
 */
import type { ConfigProblem } from "./issues.ts";
import type { RenderedConfig } from "./schema.ts";

export const MANAGED_PROVIDER_REFUSAL =
  'The "managed" email provider uses mail domains hosted by the reference platform, which a self-hosted Gatehouse does not have; use "smtp" (any SMTP server) or "resend" (with a Resend API key as the password).';

export function emailServerProblems(config: RenderedConfig): ConfigProblem[] {
  const server = config.emails.server;
  if (server.isShared) return [];
  const at = (field: string, detail: string): ConfigProblem => ({
    path: ["emails", "server", field],
    where: `emails.server.${field}`,
    detail,
  });
  if (server.provider === "managed") return [at("provider", MANAGED_PROVIDER_REFUSAL)];
  if (server.provider === "resend" && !server.password) {
    return [at("password", "the Resend provider needs a Resend API key as the password")];
  }
  return [];
}
