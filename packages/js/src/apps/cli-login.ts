import type { WireCliLoginPoll, WireCliLoginStarted } from "@gatehouse/shared";
import { KnownError } from "@gatehouse/shared";
import { Result } from "../utils/result.ts";
import type { AppContext } from "./context.ts";

// The catalogue's words for the two poll outcomes, written here because the catalogue's messages stay out of the
// browser bundle (KnownError reads only the code table); a CLI shows these to its user.
const EXPIRED_MESSAGE = "CLI authentication request expired. Please try again.";
const USED_MESSAGE = "This authentication token has already been used.";

/** How long to wait between two polls (SPEC.md §9). */
export const CLI_POLL_INTERVAL_MS = 2000;

export type CliLoginOptions = {
  /** The app that shows the confirmation page (`<appUrl>/handler/cli-auth-confirm?login_code=…`). */
  appUrl: string;
  expiresInMillis?: number;
  /** The refresh token of an anonymous session the CLI already has, to be claimed by the signed-in user. */
  anonRefreshToken?: string;
  /** Shows the link to the user; defaults to printing it. */
  promptLink?: (url: string, loginCode: string) => void;
  /** Stop after this many polls (default: until the attempt expires). */
  maxAttempts?: number;
  pollIntervalMs?: number;
};

/** WireCliLoginPoll read loosely: a status this version does not know is reported, not trusted. */
type PollAnswer = { status: WireCliLoginPoll["status"] | (string & {}); refresh_token?: string };

/**
 * Command-line login (PROTOCOL.md §4.9): create an attempt, show the confirmation link, and poll until the user
 * confirms in the browser. Resolves with the new refresh token, or a CLI error.
 */
export async function promptCliLogin(
  ctx: AppContext,
  options: CliLoginOptions,
): Promise<Result<string, KnownError>> {
  const created = await ctx.call<WireCliLoginStarted>("/auth/cli", {
    method: "POST",
    accessType: "client",
    body: {
      ...(options.expiresInMillis !== undefined ? { expires_in_millis: options.expiresInMillis } : {}),
      ...(options.anonRefreshToken !== undefined ? { anon_refresh_token: options.anonRefreshToken } : {}),
    },
  });
  const confirmPath = ctx.urls.cliAuthConfirm;
  const url = /^https?:\/\//.test(confirmPath)
    ? new URL(confirmPath)
    : new URL(options.appUrl.replace(/\/+$/, "") + (confirmPath.startsWith("/") ? "" : "/") + confirmPath);
  url.searchParams.set("login_code", created.login_code);
  const promptLink =
    options.promptLink ??
    ((link: string) => console.log(`Open this link in your browser to log in:\n\n  ${link}\n`));
  promptLink(url.toString(), created.login_code);

  const maxAttempts = options.maxAttempts ?? Number.POSITIVE_INFINITY;
  for (let attempt = 0; attempt < maxAttempts; attempt++) {
    const response = await ctx.api.request("/auth/cli/poll", {
      method: "POST",
      accessType: "client",
      body: { polling_code: created.polling_code },
    });
    const answer = response.body as PollAnswer;
    // Only a 201 with "success" hands over a token; a 200 "success" would be a broken server.
    if (response.status === 201 && answer.status === "success" && typeof answer.refresh_token === "string") {
      return Result.ok(answer.refresh_token);
    }
    if (answer.status === "expired")
      return Result.error(new KnownError("CLI_AUTH_EXPIRED_ERROR", undefined, EXPIRED_MESSAGE));
    if (answer.status === "used")
      return Result.error(new KnownError("CLI_AUTH_USED_ERROR", undefined, USED_MESSAGE));
    if (answer.status !== "waiting") {
      return Result.error(
        new KnownError("CLI_AUTH_ERROR", undefined, `Unexpected CLI login status: ${String(answer.status)}`),
      );
    }
    if (attempt + 1 < maxAttempts) await ctx.runtime.sleep(options.pollIntervalMs ?? CLI_POLL_INTERVAL_MS);
  }
  return Result.error(
    new KnownError("CLI_AUTH_ERROR", undefined, "Timed out waiting for CLI authentication."),
  );
}

/** The browser side: the signed-in user confirms the CLI login `loginCode`, handing the CLI their session. */
export async function completeCliLogin(ctx: AppContext, loginCode: string): Promise<void> {
  const session = ctx.persistentSession();
  const { refreshToken } = await session.getTokens();
  if (refreshToken === null) throw new KnownError("USER_AUTHENTICATION_REQUIRED");
  await ctx.call("/auth/cli/complete", {
    method: "POST",
    accessType: "client",
    session,
    body: { login_code: loginCode, refresh_token: refreshToken },
  });
}

/**
 * The browser side, nobody signed in (PROTOCOL-EXTRA §8.9): whether the CLI that made `loginCode` holds an anonymous
 * session, which the browser may take over and sign up with.
 */
export async function cliLoginSessionState(
  ctx: AppContext,
  loginCode: string,
): Promise<"anonymous" | "none"> {
  const answer = await ctx.call<{ cli_session_state?: string }>("/auth/cli/complete", {
    method: "POST",
    accessType: "client",
    body: { login_code: loginCode, mode: "check" },
  });
  return answer.cli_session_state === "anonymous" ? "anonymous" : "none";
}

/**
 * Takes over the CLI's anonymous session in this browser (once per login code): signing up next upgrades that
 * anonymous user in place, keeping what the CLI did as them; `completeCliLogin` then hands the CLI the new session.
 */
export async function claimCliAnonymousSession(ctx: AppContext, loginCode: string): Promise<void> {
  const tokens = await ctx.call<{ access_token: string; refresh_token: string }>("/auth/cli/complete", {
    method: "POST",
    accessType: "client",
    body: { login_code: loginCode, mode: "claim-anon-session" },
  });
  ctx.persistentSession().setTokens({ accessToken: tokens.access_token, refreshToken: tokens.refresh_token });
  ctx.invalidateUserData();
}
