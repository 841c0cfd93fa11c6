/** A small client for the Gatehouse HTTP API (the Stack Auth wire protocol), as the CLI uses it. */
import { CliError, EXIT } from "./errors.ts";

export const DEFAULT_API_URL = "http://localhost:8102";
export const CLI_VERSION = "0.1.0";

export type Access = {
  projectId: string;
  accessType: "client" | "server" | "admin";
  headers?: Record<string, string>;
};

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string | null,
    message: string,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

export function normalizeApiUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new CliError(
      `--api-url ${JSON.stringify(url)} is not a URL (e.g. http://localhost:8102).`,
      EXIT.usage,
    );
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new CliError(`--api-url must be an http or https URL, got ${url}.`, EXIT.usage);
  }
  return parsed.toString().replace(/\/+$/, "");
}

export type RequestOptions = {
  method?: string;
  body?: unknown;
  query?: Record<string, string | number | boolean | undefined>;
};

export async function apiRequest<T = Record<string, unknown>>(
  apiUrl: string,
  access: Access,
  path: string,
  options: RequestOptions = {},
): Promise<{ status: number; body: T }> {
  const url = new URL(`${apiUrl}/api/v1${path}`);
  for (const [key, value] of Object.entries(options.query ?? {})) {
    if (value !== undefined) url.searchParams.set(key, String(value));
  }
  const headers: Record<string, string> = {
    "x-stack-project-id": access.projectId,
    "x-stack-access-type": access.accessType,
    "x-stack-client-version": `gatehouse-cli@${CLI_VERSION}`,
    ...access.headers,
  };
  if (options.body !== undefined) headers["content-type"] = "application/json";
  let response: Response;
  try {
    response = await fetch(url, {
      method: options.method ?? "GET",
      headers,
      ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw new CliError(
      `Cannot reach Gatehouse at ${apiUrl} (${cause?.code ?? cause?.message ?? String(error)}). ` +
        "Is the server running? Use --api-url to point at another one.",
      EXIT.unreachable,
    );
  }
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // A plain-text answer (the protocol's plain 400s).
  }
  if (!response.ok) {
    const code = response.headers.get("x-stack-known-error");
    const message =
      typeof body === "object" && body !== null && "error" in body
        ? String((body as { error: unknown }).error)
        : text;
    throw new ApiError(response.status, code, message || `HTTP ${response.status}`);
  }
  return { status: response.status, body: body as T };
}
