import { z } from "zod";

/** Emails are compared and stored trimmed and lower-cased. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** Surrounding spaces are forgiven (they are a copy-paste accident); the address is stored lower-cased. */
export const emailField = z.string().trim().pipe(z.email().max(254));
