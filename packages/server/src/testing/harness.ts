import { randomUUID } from "node:crypto";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Hono } from "hono";
import { bootGatehouse, type Gatehouse } from "../bootstrap.ts";
import type { DatabaseHandle } from "../db/handle.ts";
import type { AppDeps } from "../deps.ts";
import type { ServerEnv } from "../env.ts";
import { createKeySet } from "../features/project-keys/service.ts";
import { createProject } from "../features/projects/service.ts";
import { openTestDatabase } from "./test-database.ts";

/** Fixed internal keys for tests, the same idea as GATEHOUSE_SEED_INTERNAL_* in CI. */
export const TEST_INTERNAL_KEYS = {
  publishableClientKey: "pck_test_internal_publishable_client_key_0000000000",
  secretServerKey: "ssk_test_internal_secret_server_key_0000000000000000",
  superSecretAdminKey: "sak_test_internal_super_secret_admin_key_00000000000",
} as const;

export function testEnv(overrides: Partial<ServerEnv> = {}): ServerEnv {
  return {
    port: 0,
    baseUrl: "http://localhost:8102",
    databaseUrl: undefined,
    database: { pooling: "auto", directUrl: undefined, migrateOnStart: true },
    // Nothing is written there but uploaded images (created on the first); `removeTestDataDir` clears it.
    dataDir: path.join(tmpdir(), `gatehouse-test-${randomUUID()}`),
    secret: "test-secret-that-is-long-enough-to-pass-the-check",
    smtpUrl: undefined,
    emailFrom: "noreply@gatehouse.test",
    accessTokenTtlSeconds: 600,
    seed: { ...TEST_INTERNAL_KEYS, adminEmail: undefined, adminPassword: undefined },
    isDevelopment: true,
    trustProxy: null,
    ...overrides,
  };
}

/** Removes the data dir `testEnv` made up, unless the test chose its own. */
export async function removeTestDataDir(env: ServerEnv, overrides: Partial<ServerEnv>): Promise<void> {
  if (overrides.dataDir === undefined) await rm(env.dataDir, { recursive: true, force: true });
}

export type AccessHeaders = {
  projectId: string;
  accessType?: "client" | "server" | "admin";
  publishableClientKey?: string;
  secretServerKey?: string;
  superSecretAdminKey?: string;
  accessToken?: string;
  adminAccessToken?: string;
};

export type TestProject = {
  id: string;
  keys: { publishableClientKey: string; secretServerKey: string; superSecretAdminKey: string };
  /** Protocol headers for one access type, with that type's key. */
  headers: (
    accessType: "client" | "server" | "admin",
    extra?: Record<string, string>,
  ) => Record<string, string>;
  /**
   * Sets config keys (dot notation) on one override level, through the admin config API as the dashboard does;
   * the environment level unless told. Throws unless the server accepted them.
   */
  configure: (override: Record<string, unknown>, level?: "project" | "environment") => Promise<void>;
};

/** Protocol headers (PROTOCOL.md §1.2) for a request. */
export function protocolHeaders(access: AccessHeaders): Record<string, string> {
  const headers: Record<string, string> = { "x-stack-project-id": access.projectId };
  if (access.accessType) headers["x-stack-access-type"] = access.accessType;
  if (access.publishableClientKey) headers["x-stack-publishable-client-key"] = access.publishableClientKey;
  if (access.secretServerKey) headers["x-stack-secret-server-key"] = access.secretServerKey;
  if (access.superSecretAdminKey) headers["x-stack-super-secret-admin-key"] = access.superSecretAdminKey;
  if (access.accessToken) headers["x-stack-access-token"] = access.accessToken;
  if (access.adminAccessToken) headers["x-stack-admin-access-token"] = access.adminAccessToken;
  return headers;
}

export type TestServer = {
  app: Hono;
  deps: AppDeps;
  /** The database handle under `deps.db` (its kind, and PostgreSQL's pool for `postgresPoolOf`). */
  database: DatabaseHandle;
  /** `app.request()` with JSON in and out. */
  request: (
    path: string,
    init?: { method?: string; headers?: Record<string, string>; body?: unknown },
  ) => Promise<{ status: number; headers: Headers; body: any; text: string }>;
  /** A fresh project (no owner team) with a full key set. */
  createProject: (displayName?: string) => Promise<TestProject>;
  internal: TestProject;
  close: () => Promise<void>;
};

export async function createTestServer(envOverrides: Partial<ServerEnv> = {}): Promise<TestServer> {
  const database = await openTestDatabase();
  const env = testEnv(envOverrides);
  const gatehouse = await bootGatehouse(env, database, {
    emailWorker: false,
    webhookWorker: false,
  });
  return {
    ...testApiOf(gatehouse),
    close: async () => {
      await gatehouse.close();
      await removeTestDataDir(env, envOverrides);
    },
  };
}

/**
 * The test kit over a booted Gatehouse: requests, projects and their config. A listening server (SDK and browser
 * tests) offers the same kit as `createTestServer`, so both kinds of test set projects up one way.
 */
export function testApiOf(
  gatehouse: Pick<Gatehouse, "app" | "deps" | "database">,
): Omit<TestServer, "close"> {
  const { app, deps, database } = gatehouse;

  const request: TestServer["request"] = async (path, init = {}) => {
    const headers: Record<string, string> = { ...init.headers };
    let body: BodyInit | undefined;
    if (init.body !== undefined) {
      headers["content-type"] ??= "application/json";
      body = typeof init.body === "string" ? init.body : JSON.stringify(init.body);
    }
    const response = await app.request(path, { method: init.method ?? "GET", headers, body });
    const text = await response.text();
    let parsed: unknown = text;
    if ((response.headers.get("content-type") ?? "").includes("application/json")) parsed = JSON.parse(text);
    return { status: response.status, headers: response.headers, body: parsed, text };
  };

  const toTestProject = (id: string, keys: TestProject["keys"]): TestProject => {
    const headers: TestProject["headers"] = (accessType, extra = {}) => ({
      ...protocolHeaders({
        projectId: id,
        accessType,
        ...(accessType === "client" ? { publishableClientKey: keys.publishableClientKey } : {}),
        ...(accessType === "server" ? { secretServerKey: keys.secretServerKey } : {}),
        ...(accessType === "admin" ? { superSecretAdminKey: keys.superSecretAdminKey } : {}),
      }),
      ...extra,
    });
    return {
      id,
      keys,
      headers,
      configure: async (override, level = "environment") => {
        const response = await request(`/api/v1/internal/config/override/${level}`, {
          method: "PATCH",
          headers: headers("admin"),
          body: { config_override_string: JSON.stringify(override) },
        });
        if (response.status !== 200) {
          throw new Error(`Config override refused: ${response.status} ${response.text}`);
        }
      },
    };
  };

  return {
    app,
    deps,
    database,
    request,
    internal: toTestProject("internal", TEST_INTERNAL_KEYS),
    createProject: async (displayName = "Test project") => {
      const project = await createProject(deps, { display_name: displayName, owner_team_id: null });
      const { keys } = await createKeySet(deps.db, project.id, {
        description: "test keys",
        expiresAt: null,
        hasPublishableClientKey: true,
        hasSecretServerKey: true,
        hasSuperSecretAdminKey: true,
      });
      return toTestProject(project.id, keys as TestProject["keys"]);
    },
  };
}
