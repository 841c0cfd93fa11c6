/**
 * The routes that sign someone in, by method. Counted from the answer at the HTTP layer, so every feature's sign-in
 * is counted the same way without each one reporting; keyed by method and route template without the API prefix.
 */
const SIGN_IN_ROUTES: ReadonlyMap<string, string> = new Map([
  ["POST /auth/password/sign-in", "password"],
  ["POST /auth/otp/sign-in", "otp"],
  ["GET /auth/oauth/callback/:provider_id", "oauth"],
  ["POST /auth/oauth/callback/:provider_id", "oauth"],
  ["POST /auth/oauth/callback/apple/native", "oauth"],
  ["POST /auth/passkey/sign-in", "passkey"],
  ["POST /auth/anonymous/sign-up", "anonymous"],
  ["POST /auth/mfa/sign-in", "mfa"],
]);

export const SIGN_IN_METHODS = [...new Set(SIGN_IN_ROUTES.values())];

const API_PREFIX = /^\/api\/(?:v1|latest)(?=\/)/;

/** The sign-in method a request's route is, or undefined for any other route. */
export function signInMethodOf(method: string, route: string): string | undefined {
  if (!API_PREFIX.test(route)) return undefined;
  return SIGN_IN_ROUTES.get(`${method} ${route.replace(API_PREFIX, "")}`);
}

/**
 * What the answer says about the attempt. `status` is the real status (before x-stack-override-error-status). The
 * OAuth callback answers with a redirect either way: to the app with a code, or to its error redirect, whose query
 * carries `errorCode`.
 */
export function signInOutcomeOf(
  status: number,
  headers: Headers,
): "success" | "failure" | "mfa_required" | "rate_limited" | "error" {
  if (status === 429) return "rate_limited";
  if (status >= 500) return "error";
  if (headers.get("x-stack-known-error") === "MULTI_FACTOR_AUTHENTICATION_REQUIRED") return "mfa_required";
  if (status >= 300 && status < 400) {
    const location = headers.get("location") ?? "";
    return /[?&]errorCode=/.test(location) ? "failure" : "success";
  }
  return status < 300 ? "success" : "failure";
}
