/** `gatehouse login`, `logout`, `whoami`: the command-line login of SPEC.md §4, §7-§9. */
import { spawn } from "node:child_process";
import type { Command } from "commander";
import { ApiError, apiRequest } from "../api.ts";
import { type Context, contextOf, internalClient, ownerOf, refreshAccessToken } from "../context.ts";
import { credentialsPath, forgetLogin, loadLogin, saveLogin } from "../credentials.ts";
import { CliError, EXIT } from "../errors.ts";

/** SPEC.md §9: poll every 2 s. */
const POLL_INTERVAL_MS = 2000;

/** The browser opener of this platform; failures are fine, the link is printed anyway. */
function openBrowser(url: string): void {
  const [command, args] =
    process.platform === "darwin"
      ? ["open", [url]]
      : process.platform === "win32"
        ? ["cmd", ["/c", "start", "", url]]
        : ["xdg-open", [url]];
  try {
    const child = spawn(command, args, { stdio: "ignore", detached: true });
    child.on("error", () => {});
    child.unref();
  } catch {
    // No opener: the printed link is the way.
  }
}

type Me = { id: string; primary_email: string | null; display_name: string | null };

async function currentUser(ctx: Context, accessToken: string): Promise<Me> {
  const { body } = await apiRequest<Me>(
    ctx.apiUrl,
    { ...internalClient, headers: { "x-stack-access-token": accessToken } },
    "/users/me",
  );
  return body;
}

async function login(ctx: Context, options: { browser: boolean; timeout: string }) {
  const minutes = Number(options.timeout);
  if (!Number.isFinite(minutes) || minutes <= 0 || minutes > 24 * 60) {
    throw new CliError("--timeout takes a number of minutes, up to 1440.", EXIT.usage);
  }
  const { body: created } = await apiRequest<{ polling_code: string; login_code: string }>(
    ctx.apiUrl,
    internalClient,
    "/auth/cli",
    { method: "POST", body: { expires_in_millis: Math.round(minutes * 60_000) } },
  );
  const url = `${ctx.apiUrl}/handler/cli-auth-confirm?login_code=${encodeURIComponent(created.login_code)}`;
  ctx.out.note(`Open this link in your browser to log in:\n\n  ${url}\n`);
  if (options.browser && process.env.BROWSER !== "none") openBrowser(url);
  ctx.out.note("Waiting for you to authorize in the browser... (Ctrl-C to stop)");

  for (;;) {
    const response = await apiRequest<{ status: string; refresh_token?: string }>(
      ctx.apiUrl,
      internalClient,
      "/auth/cli/poll",
      { method: "POST", body: { polling_code: created.polling_code } },
    );
    const answer = response.body;
    if (response.status === 201 && answer.status === "success" && answer.refresh_token) {
      const accessToken = await refreshAccessToken(ctx.apiUrl, answer.refresh_token);
      const me = await currentUser(ctx, accessToken);
      saveLogin(ctx.apiUrl, {
        refreshToken: answer.refresh_token,
        userId: me.id,
        email: me.primary_email,
        savedAt: new Date().toISOString(),
      });
      ctx.out.result({ api_url: ctx.apiUrl, user_id: me.id, email: me.primary_email }, () =>
        ctx.out.color.green(`Logged in to ${ctx.apiUrl} as ${me.primary_email ?? me.id}.`),
      );
      return;
    }
    if (answer.status === "expired") {
      throw new CliError(
        "CLI authentication request expired. Please try again (`gatehouse login`).",
        EXIT.auth,
      );
    }
    if (answer.status === "used") {
      throw new CliError(
        "This authentication token has already been used. Run `gatehouse login` again.",
        EXIT.auth,
      );
    }
    if (answer.status !== "waiting") {
      throw new CliError(`Unexpected answer from the server while logging in: ${answer.status}.`, EXIT.auth);
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS));
  }
}

async function logout(ctx: Context) {
  const stored = loadLogin(ctx.apiUrl);
  if (!stored) {
    ctx.out.result({ api_url: ctx.apiUrl, logged_out: false }, () => `Not logged in to ${ctx.apiUrl}.`);
    return;
  }
  // End the session on the server too; an unreachable server or a dead session must not keep the token here.
  try {
    await apiRequest(
      ctx.apiUrl,
      { ...internalClient, headers: { "x-stack-refresh-token": stored.refreshToken } },
      "/auth/sessions/current",
      { method: "DELETE" },
    );
  } catch (error) {
    if (!(error instanceof ApiError) && !(error instanceof CliError)) throw error;
  }
  forgetLogin(ctx.apiUrl);
  ctx.out.result({ api_url: ctx.apiUrl, logged_out: true }, () => `Logged out of ${ctx.apiUrl}.`);
}

async function whoami(ctx: Context) {
  const owner = await ownerOf(ctx, { requireLogin: true });
  const me = await currentUser(ctx, owner.accessToken!);
  ctx.out.result(
    { api_url: ctx.apiUrl, user_id: me.id, email: me.primary_email, display_name: me.display_name },
    () => `${me.primary_email ?? me.id}${me.display_name ? ` (${me.display_name})` : ""} on ${ctx.apiUrl}`,
  );
}

export function registerAuthCommands(program: Command): void {
  program
    .command("login")
    .description("log in through the browser and keep the session in your config directory")
    .option("--no-browser", "only print the link, do not open a browser")
    .option("--timeout <minutes>", "how long the login link stays valid", "15")
    .addHelpText("after", () => `\nThe session is stored in ${credentialsPath()} (mode 0600).`)
    .action((options, command: Command) => login(contextOf(command), options));
  program
    .command("logout")
    .description("end the stored session and forget it")
    .action((_options, command: Command) => logout(contextOf(command)));
  program
    .command("whoami")
    .description("show who is logged in (exit code 3 when nobody is)")
    .action((_options, command: Command) => whoami(contextOf(command)));
}
