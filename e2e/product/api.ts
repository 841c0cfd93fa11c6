import { generateProjectApiKey } from "../../packages/server/src/crypto/keys.ts";

/** The internal project's keys, fixed through the environment as an operator running several instances does. */
export type SeedKeys = { publishableClientKey: string; secretServerKey: string; superSecretAdminKey: string };

export function newSeedKeys(): SeedKeys {
  return {
    publishableClientKey: generateProjectApiKey("publishable_client_key"),
    secretServerKey: generateProjectApiKey("secret_server_key"),
    superSecretAdminKey: generateProjectApiKey("super_secret_admin_key"),
  };
}

export function seedKeysEnv(keys: SeedKeys): Record<string, string> {
  return {
    GATEHOUSE_SEED_INTERNAL_PUBLISHABLE_CLIENT_KEY: keys.publishableClientKey,
    GATEHOUSE_SEED_INTERNAL_SECRET_SERVER_KEY: keys.secretServerKey,
    GATEHOUSE_SEED_INTERNAL_SUPER_SECRET_ADMIN_KEY: keys.superSecretAdminKey,
  };
}

/** Who a request is from, in the wire protocol's headers (PROTOCOL.md §1.2). */
export type Caller = {
  projectId: string;
  accessType: "client" | "server" | "admin";
  publishableClientKey?: string;
  secretServerKey?: string;
  superSecretAdminKey?: string;
  accessToken?: string;
  refreshToken?: string;
  /** A project owner's access token of the `internal` project, standing in for the project's keys. */
  adminAccessToken?: string;
};

export type ApiAnswer = { status: number; body: Record<string, unknown> & { code?: string } };

/**
 * One call of the REST API over HTTP, the way any app's client makes it. Network failures reject (the crash test
 * relies on that to tell an unanswered write from a refused one); every answer resolves, whatever its status.
 */
export async function callApi(
  baseUrl: string,
  caller: Caller,
  path: string,
  options: { method?: string; body?: unknown } = {},
): Promise<ApiAnswer> {
  const headers: Record<string, string> = {
    "x-stack-project-id": caller.projectId,
    "x-stack-access-type": caller.accessType,
  };
  if (caller.publishableClientKey) headers["x-stack-publishable-client-key"] = caller.publishableClientKey;
  if (caller.secretServerKey) headers["x-stack-secret-server-key"] = caller.secretServerKey;
  if (caller.superSecretAdminKey) headers["x-stack-super-secret-admin-key"] = caller.superSecretAdminKey;
  if (caller.accessToken) headers["x-stack-access-token"] = caller.accessToken;
  if (caller.refreshToken) headers["x-stack-refresh-token"] = caller.refreshToken;
  if (caller.adminAccessToken) headers["x-stack-admin-access-token"] = caller.adminAccessToken;
  if (options.body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(`${baseUrl}/api/v1${path}`, {
    method: options.method ?? (options.body === undefined ? "GET" : "POST"),
    headers,
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  const text = await response.text();
  let body: ApiAnswer["body"];
  try {
    body = text ? (JSON.parse(text) as ApiAnswer["body"]) : {};
  } catch {
    body = { text };
  }
  return { status: response.status, body };
}

/** The answer's body, or an error naming the call and what came back instead of a 2xx. */
export async function expectOk(answer: Promise<ApiAnswer>, what: string): Promise<ApiAnswer["body"]> {
  const { status, body } = await answer;
  if (status < 200 || status >= 300) throw new Error(`${what}: ${status} ${JSON.stringify(body)}`);
  return body;
}

/** The first `code=` parameter of a link in an email: the one-time code the email carries. */
export function codeInEmail(text: string): string {
  const match = /[?&]code=([0-9a-z]+)/i.exec(text);
  if (!match) throw new Error(`No link with a code in:\n${text}`);
  return match[1]!;
}
