/**
 * What a sign-up rule's condition sees (PROTOCOL-EXTRA §6.3): the CEL variables, built the same way for real
 * sign-ups (apply.ts) and for the admin tester (routes.ts).
 */
import { normalizeEmail } from "../../fields/email.ts";
import { countryOfIp } from "../../net/ip-info.ts";
import type { SignUpRiskScores } from "./risk-scores.ts";

export const SIGN_UP_AUTH_METHODS = ["password", "otp", "oauth", "passkey"] as const;
export type SignUpAuthMethod = (typeof SIGN_UP_AUTH_METHODS)[number];

export type SignUpRuleContext = {
  /** Trimmed and lower-cased; "" when the sign-up has no address. */
  email: string;
  /** What follows the last `@` of `email`; "" when there is none. */
  emailDomain: string;
  /** ISO 3166-1 alpha-2, upper-case; "" when unknown. */
  countryCode: string;
  authMethod: SignUpAuthMethod;
  /** The provider's type (`github`, `google`, ...) for OAuth sign-ups; "" otherwise. */
  oauthProvider: string;
  riskScores: SignUpRiskScores;
};

const COUNTRY_CODE = /^[A-Z]{2}$/;

/** An ISO-2 code upper-cased, or null when `value` is not two letters. */
export function normalizeCountryCode(value: string | null | undefined): string | null {
  const code = value?.trim().toUpperCase() ?? "";
  return COUNTRY_CODE.test(code) ? code : null;
}

export function createSignUpRuleContext(input: {
  email: string | null;
  countryCode: string | null;
  authMethod: SignUpAuthMethod;
  oauthProvider: string | null;
  riskScores: SignUpRiskScores;
}): SignUpRuleContext {
  const email = input.email ? normalizeEmail(input.email) : "";
  const at = email.lastIndexOf("@");
  return {
    email,
    emailDomain: at >= 0 ? email.slice(at + 1) : "",
    countryCode: normalizeCountryCode(input.countryCode) ?? "",
    authMethod: input.authMethod,
    oauthProvider: input.oauthProvider ?? "",
    riskScores: input.riskScores,
  };
}

/**
 * The country a sign-up comes from: what a trusted proxy said (`trustedCountry`, http/client-geo.ts), else the
 * request's address looked up in the bundled GeoIP data. In development, an `@example.com` address tagged with a
 * country (`someone+CA@example.com`) says it instead, so country rules can be tried from a laptop; never in
 * production, where anyone could pick their own country that way.
 */
export function deriveSignUpCountryCode(input: {
  ip: string | null;
  email: string | null;
  isDevelopment: boolean;
  trustedCountry?: string | null;
}): string | null {
  if (input.isDevelopment && input.email) {
    const tag = /^[^+@]+\+([a-z]{2})@example\.com$/i.exec(input.email.trim())?.[1];
    if (tag) return tag.toUpperCase();
  }
  return input.trustedCountry ?? countryOfIp(input.ip);
}
