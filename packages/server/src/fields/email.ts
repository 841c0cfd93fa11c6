import { z } from "zod";

/** Emails are compared and stored trimmed and lower-cased. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** Surrounding spaces are forgiven (they are a copy-paste accident); the address is stored lower-cased. */
export const emailField = z.string().trim().pipe(z.email().max(254));

/**
 * Marking a user's primary email verified or usable for sign-in, for a user who has none: said in words, since the
 * dashboard and the SDKs show it as it is.
 */
export const PRIMARY_EMAIL_NEEDED =
  "A user without a primary email cannot have it marked verified or used for sign-in: give the user a primary email as well.";
