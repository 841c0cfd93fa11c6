/** What every command starts from: the global flags, the output, and (for most) the logged-in owner. */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Command } from "commander";
import {
  type Access,
  ApiError,
  apiRequest,
  DEFAULT_API_URL,
  normalizeApiUrl,
  type RequestOptions,
} from "./api.ts";
import { loadLogin } from "./credentials.ts";
import { CliError, EXIT } from "./errors.ts";
import { choose, createOutput, type Output } from "./output.ts";

export type GlobalOptions = {
  apiUrl?: string;
  json?: boolean;
  color?: boolean;
  project?: string;
  yes?: boolean;
};

export type Context = { out: Output; apiUrl: string; options: GlobalOptions };

export function contextOf(command: Command): Context {
  const options = command.optsWithGlobals<GlobalOptions>();
  return {
    out: createOutput(options),
    apiUrl: normalizeApiUrl(options.apiUrl ?? process.env.GATEHOUSE_API_URL ?? DEFAULT_API_URL),
    options,
  };
}

export const internalClient: Access = { projectId: "internal", accessType: "client" };

/** The logged-in owner: an access token of the `internal` project, and what it can reach. */
export type Owner = {
  ctx: Context;
  accessToken: string | null;
  /** A call as the owner's user on the internal project (projects, teams, /users/me). */
  asUser<T = Record<string, unknown>>(path: string, options?: RequestOptions): Promise<T>;
  /** A call with admin access to one project. */
  asAdmin<T = Record<string, unknown>>(projectId: string, path: string, options?: RequestOptions): Promise<T>;
};

const notLoggedIn = (apiUrl: string) =>
  new CliError(`Not logged in to ${apiUrl}. Run \`gatehouse login --api-url ${apiUrl}\` first.`, EXIT.auth);

export async function refreshAccessToken(apiUrl: string, refreshToken: string): Promise<string> {
  try {
    const { body } = await apiRequest<{ access_token: string }>(
      apiUrl,
      { ...internalClient, headers: { "x-stack-refresh-token": refreshToken } },
      "/auth/sessions/current/refresh",
      { method: "POST", body: {} },
    );
    return body.access_token;
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) {
      throw new CliError(
        `Your login to ${apiUrl} has expired or was revoked. Run \`gatehouse login\` again.`,
        EXIT.auth,
      );
    }
    throw error;
  }
}

/**
 * The owner behind the stored login. In CI, `GATEHOUSE_SUPER_SECRET_ADMIN_KEY` (with the project given by --project
 * or `GATEHOUSE_PROJECT_ID`) stands in for a login for project commands.
 */
export async function ownerOf(ctx: Context, options: { requireLogin?: boolean } = {}): Promise<Owner> {
  const adminKey = process.env.GATEHOUSE_SUPER_SECRET_ADMIN_KEY;
  const login = loadLogin(ctx.apiUrl);
  if (!login && (options.requireLogin || !adminKey)) throw notLoggedIn(ctx.apiUrl);
  const accessToken = login ? await refreshAccessToken(ctx.apiUrl, login.refreshToken) : null;
  const call = async <T>(access: Access, path: string, requestOptions?: RequestOptions) =>
    (await apiRequest<T>(ctx.apiUrl, access, path, requestOptions)).body;
  return {
    ctx,
    accessToken,
    asUser: (path, requestOptions) => {
      if (!accessToken) throw notLoggedIn(ctx.apiUrl);
      return call(
        { ...internalClient, headers: { "x-stack-access-token": accessToken } },
        path,
        requestOptions,
      );
    },
    asAdmin: (projectId, path, requestOptions) =>
      call(
        {
          projectId,
          accessType: "admin",
          headers: accessToken
            ? { "x-stack-admin-access-token": accessToken }
            : { "x-stack-super-secret-admin-key": adminKey! },
        },
        path,
        requestOptions,
      ),
  };
}

const PROJECT_ID_VARIABLES = ["NEXT_PUBLIC_STACK_PROJECT_ID", "VITE_STACK_PROJECT_ID", "STACK_PROJECT_ID"];

/** The project id in the app's `.env.local` (what `gatehouse init` wrote), if any. */
function projectIdFromEnvFile(): string | undefined {
  for (const name of [".env.local", ".env"]) {
    const path = join(process.cwd(), name);
    if (!existsSync(path)) continue;
    for (const line of readFileSync(path, "utf8").split(/\r?\n/)) {
      const match = /^\s*([A-Z_]+)\s*=\s*"?([^"\s]+)"?\s*$/.exec(line);
      if (match && PROJECT_ID_VARIABLES.includes(match[1]!)) return match[2];
    }
  }
  return undefined;
}

export type ProjectSummary = { id: string; display_name: string; created_at_millis?: number };

/** The project a command works on: --project, GATEHOUSE_PROJECT_ID, the app's .env.local, or a choice. */
export async function resolveProject(owner: Owner): Promise<string> {
  const given = owner.ctx.options.project ?? process.env.GATEHOUSE_PROJECT_ID ?? projectIdFromEnvFile();
  if (given) return given;
  if (!owner.ctx.out.interactive) {
    throw new CliError(
      "No project given: pass --project <id> (or set GATEHOUSE_PROJECT_ID, or run `gatehouse init`).",
      EXIT.usage,
    );
  }
  const { items } = await owner.asUser<{ items: ProjectSummary[] }>("/internal/projects");
  if (items.length === 0) throw new CliError("You have no projects yet: `gatehouse projects create <name>`.");
  return choose(
    owner.ctx.out,
    "Which project?",
    items.map((project) => ({ value: project.id, label: project.display_name, hint: project.id })),
    "--project <id>",
  );
}
