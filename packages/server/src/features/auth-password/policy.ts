import { knownError } from "@gatehouse/shared";
import type { RenderedConfig } from "../../config/index.ts";

/** PROTOCOL.md §4.1 and SPEC.md §5. The limits are the reference platform's, which the SDK also checks. */
export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 70;

/**
 * PASSWORD_TOO_SHORT / PASSWORD_TOO_LONG for a new password. Lengths are counted in UTF-16 units like the SDK's own
 * check, so a password the SDK lets through is never refused here for its length.
 */
export function assertPasswordRequirements(password: string): void {
  if (password.length < PASSWORD_MIN_LENGTH) {
    throw knownError("PASSWORD_TOO_SHORT", { min_length: PASSWORD_MIN_LENGTH });
  }
  if (password.length > PASSWORD_MAX_LENGTH) {
    throw knownError("PASSWORD_TOO_LONG", { maxLength: PASSWORD_MAX_LENGTH });
  }
}

export function assertPasswordAuthEnabled(config: RenderedConfig): void {
  if (!config.auth.password.allowSignIn) throw knownError("PASSWORD_AUTHENTICATION_NOT_ENABLED");
}
