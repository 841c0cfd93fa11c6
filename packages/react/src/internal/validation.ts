import type { GatehouseStrings } from "../strings.ts";

/** The server's limits (SPEC.md §5); checking them here saves a round trip, the server checks again. */
export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 70;
export const OTP_LENGTH = 6;
export const TOTP_LENGTH = 6;

const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function validateEmail(value: string, s: GatehouseStrings): string | undefined {
  const email = value.trim();
  if (email === "") return s.required;
  if (!EMAIL_PATTERN.test(email)) return s.invalidEmail;
  return undefined;
}

export function validateNewPassword(value: string, s: GatehouseStrings): string | undefined {
  if (value === "") return s.required;
  if (value.length < PASSWORD_MIN_LENGTH) return s.passwordTooShort(PASSWORD_MIN_LENGTH);
  if (value.length > PASSWORD_MAX_LENGTH) return s.passwordTooLong(PASSWORD_MAX_LENGTH);
  return undefined;
}

export function validateRepeat(password: string, repeat: string, s: GatehouseStrings): string | undefined {
  if (repeat === "") return s.required;
  if (password !== repeat) return s.passwordsDoNotMatch;
  return undefined;
}

export function required(value: string, s: GatehouseStrings): string | undefined {
  return value.trim() === "" ? s.required : undefined;
}

/** Field errors of a form; a form may be sent when none is set. */
export type Errors<F extends string> = Partial<Record<F | "form", string>>;

export function hasErrors(errors: Errors<string>): boolean {
  return Object.values(errors).some((message) => message !== undefined);
}
