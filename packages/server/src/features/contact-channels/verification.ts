import { knownError } from "@gatehouse/shared";
import type { RenderedConfig } from "../../config/index.ts";
import { assertTrustedCallbackUrl, withCode } from "../../config/trusted-urls.ts";
import type { AppDeps } from "../../deps.ts";
import { normalizeEmail } from "../../fields/email.ts";
import { StatusError } from "../../http/status-error.ts";
import { consumeRateLimit, rateLimitScope } from "../../rate-limit/limiter.ts";
import { RATE_LIMITS } from "../../rate-limit/rules.ts";
import { sendBuiltInEmail } from "../emails/built-in.ts";
import type { ProjectRow } from "../projects/schema.ts";
import { consumeVerificationCode, createVerificationCode } from "../verification-codes/service.ts";
import { markContactChannelVerified } from "./service.ts";

/**
 * Sends an "email_verification" code for one address of a user. The code's data is `{user_id, email}`: password
 * sign-up sends codes of this exact shape too, and `verifyEmailCode` accepts both.
 */
export async function sendEmailVerificationCode(
  deps: AppDeps,
  context: { project: ProjectRow; config: RenderedConfig; ip: string | null },
  input: { userId: string; email: string; callbackUrl: string },
): Promise<void> {
  assertTrustedCallbackUrl(context.config, input.callbackUrl);
  const projectId = context.project.id;
  const limits = rateLimitScope(deps, context, context.ip);
  await consumeRateLimit(limits, RATE_LIMITS.emailPerIp, context.ip);
  await consumeRateLimit(limits, RATE_LIMITS.emailPerRecipient, input.email);
  const { code } = await createVerificationCode(deps.db, {
    projectId,
    purpose: "email_verification",
    data: { user_id: input.userId, email: input.email },
  });
  await sendBuiltInEmail(deps, context.project, {
    kind: "email_verification",
    config: context.config,
    to: input.email,
    userId: input.userId,
    variables: { link: withCode(input.callbackUrl, code) },
  });
}

function readCodeData(data: unknown): { userId: string; email: string } {
  const { user_id: userId, email } = (data ?? {}) as { user_id?: unknown; email?: unknown };
  // Only this server writes code data; a row without these fields cannot be for an email address.
  if (typeof userId !== "string" || typeof email !== "string")
    throw knownError("VERIFICATION_CODE_NOT_FOUND");
  return { userId, email: normalizeEmail(email) };
}

/**
 * Checks (`peek`) or uses an email verification code. Using it marks the channel with the code's address
 * verified; the address is matched by value, so a channel deleted or changed since the email went out is not
 * verified by an old link.
 */
export async function verifyEmailCode(
  deps: AppDeps,
  context: { projectId: string; config: RenderedConfig; ip: string | null },
  input: { code: string; peek: boolean },
): Promise<void> {
  const limits = rateLimitScope(
    deps,
    { project: { id: context.projectId }, config: context.config },
    context.ip,
  );
  await consumeRateLimit(limits, RATE_LIMITS.codeCheckPerIp, context.ip);
  const row = await consumeVerificationCode(deps.db, {
    projectId: context.projectId,
    purpose: "email_verification",
    code: input.code,
    peek: input.peek,
  });
  const { userId, email } = readCodeData(row.data);
  if (input.peek) return;
  const channel = await markContactChannelVerified(deps.db, context.projectId, userId, email);
  // The reference's plain 400 for a channel removed or changed after the code went out.
  if (!channel) {
    throw new StatusError(
      400,
      "Contact channel not found: this e-mail address was removed from the user, or changed, after the code was sent.",
    );
  }
}
