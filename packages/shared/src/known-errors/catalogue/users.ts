import { defineError } from "../definition.ts";
import { under } from "./families.ts";
import { quoted, stringOr, text } from "./format.ts";

const verifyFirst =
  ", but that e-mail is not verified yet. Sign in with the method you originally used, verify the e-mail, " +
  "and then this sign-in method will work.";

/** Errors about users, signing up and signing in, passwords, verification codes, e-mails and passkeys. */
export const userErrors = {
  // --- Users ---
  USER_NOT_FOUND: defineError(404, [], "User not found."),
  USER_ID_DOES_NOT_EXIST: defineError(
    400,
    ["user_id"],
    (d) => `The user with the ID ${text(d.user_id)} does not exist.`,
  ),
  USER_EMAIL_ALREADY_EXISTS: defineError(
    409,
    ["email", "would_work_if_email_was_verified"],
    (d) =>
      `A user with the e-mail ${quoted(d.email)} already exists` +
      (d.would_work_if_email_was_verified === true ? verifyFirst : "."),
  ),
  CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE: defineError(
    409,
    ["type", "contact_channel_value", "would_work_if_email_was_verified"],
    (d) => {
      const channel = d.contact_channel_value == null ? "" : ` ${quoted(d.contact_channel_value)}`;
      return (
        `This ${text(d.type)}${channel} is already used for sign-in by another account` +
        (d.would_work_if_email_was_verified === true ? verifyFirst : ".")
      );
    },
  ),

  // --- Sign-up and sign-in methods ---
  SIGN_UP_NOT_ENABLED: defineError(
    400,
    [],
    "This project does not accept new sign-ups. Ask the project owner to enable them.",
  ),
  SIGN_UP_REJECTED: defineError(403, ["message"], (d) =>
    stringOr(d.message, "The sign-up was rejected by one of the project's sign-up rules."),
  ),
  BOT_CHALLENGE_REQUIRED: defineError(409, [], "A visible bot challenge must be completed to continue."),
  BOT_CHALLENGE_FAILED: defineError(400, ["message"], (d) =>
    typeof d.message === "string" && d.message.length > 0
      ? `The bot challenge failed: ${d.message}`
      : "The bot challenge failed.",
  ),
  PASSWORD_AUTHENTICATION_NOT_ENABLED: defineError(
    400,
    [],
    "Password sign-in is not enabled for this project.",
  ),
  PASSKEY_AUTHENTICATION_NOT_ENABLED: defineError(
    400,
    [],
    "Passkey sign-in is not enabled for this project.",
  ),
  ANONYMOUS_ACCOUNTS_NOT_ENABLED: defineError(
    400,
    [],
    "Anonymous accounts are not enabled for this project.",
  ),
  EMAIL_PASSWORD_MISMATCH: defineError(400, [], "Wrong e-mail or password."),
  REDIRECT_URL_NOT_WHITELISTED: defineError(
    400,
    [],
    "The redirect URL is not on this project's list of trusted domains.",
  ),

  // --- Passwords (PASSWORD_REQUIREMENTS_NOT_MET) ---
  PASSWORD_TOO_SHORT: defineError(
    400,
    ["min_length"],
    (d) => `The password is too short: it must be at least ${text(d.min_length)} characters long.`,
    under("PASSWORD_REQUIREMENTS_NOT_MET"),
  ),
  PASSWORD_TOO_LONG: defineError(
    400,
    ["maxLength"],
    (d) => `The password is too long: it must be at most ${text(d.maxLength)} characters long.`,
    under("PASSWORD_REQUIREMENTS_NOT_MET"),
  ),
  USER_DOES_NOT_HAVE_PASSWORD: defineError(400, [], "This user has no password."),
  PASSWORD_CONFIRMATION_MISMATCH: defineError(400, [], "The old password is not correct."),

  // --- Verification codes (VERIFICATION_ERROR) ---
  VERIFICATION_CODE_NOT_FOUND: defineError(
    404,
    [],
    "The verification code does not exist for this project.",
    under("VERIFICATION_ERROR"),
  ),
  VERIFICATION_CODE_EXPIRED: defineError(
    400,
    [],
    "The verification code has expired.",
    under("VERIFICATION_ERROR"),
  ),
  VERIFICATION_CODE_ALREADY_USED: defineError(
    409,
    [],
    "The verification code has already been used.",
    under("VERIFICATION_ERROR"),
  ),
  VERIFICATION_CODE_MAX_ATTEMPTS_REACHED: defineError(
    400,
    [],
    "The verification code was tried too many times and is no longer valid.",
    under("VERIFICATION_ERROR"),
  ),

  // --- E-mail addresses ---
  EMAIL_NOT_VERIFIED: defineError(400, [], "The e-mail address is not verified."),
  EMAIL_ALREADY_VERIFIED: defineError(409, [], "The e-mail address is already verified."),
  EMAIL_NOT_ASSOCIATED_WITH_USER: defineError(
    400,
    [],
    "The e-mail address does not belong to a user who can sign in with it.",
  ),
  EMAIL_IS_NOT_PRIMARY_EMAIL: defineError(
    400,
    ["email", "primary_email"],
    (d) =>
      `The e-mail ${quoted(d.email)} must be the user's primary e-mail, which is ` +
      `${d.primary_email == null ? "not set" : quoted(d.primary_email)}.`,
  ),

  // --- Passkeys (the server usually passes its own `error` text for the two "failed" codes) ---
  PASSKEY_REGISTRATION_FAILED: defineError(400, [], "The passkey could not be registered."),
  PASSKEY_AUTHENTICATION_FAILED: defineError(400, [], "Passkey authentication failed."),
  PASSKEY_WEBAUTHN_ERROR: defineError(
    400,
    ["message", "code"],
    (d) => `WebAuthn error (${text(d.code)}): ${stringOr(d.message, "no further information")}`,
  ),
} as const;
