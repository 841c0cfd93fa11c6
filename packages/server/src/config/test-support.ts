import { expect } from "vitest";
import type { TestProject, TestServer } from "../testing/harness.ts";
import type { RenderResult } from "./render.ts";
import type { RenderedConfig } from "./schema.ts";

/** The rendered config, or a failed test naming the problems. */
export function rendered(result: RenderResult): RenderedConfig {
  if (!result.ok) throw new Error(`expected the config to render, got:\n${result.problems.join("\n")}`);
  return result.config;
}

/** The problems of a config that must not render. */
export function problems(result: RenderResult): string[] {
  if (result.ok) throw new Error("expected problems, but the config rendered");
  return result.problems;
}

/** The switches of a new project's legacy config view (PROTOCOL.md §3.10), for tests that compare against them. */
export const NEW_PROJECT_LEGACY_SWITCHES = {
  allow_localhost: true,
  sign_up_enabled: true,
  credential_enabled: true,
  magic_link_enabled: false,
  passkey_enabled: false,
  client_team_creation_enabled: false,
  client_user_deletion_enabled: false,
  allow_user_api_keys: false,
  allow_team_api_keys: false,
} as const;

/** A legacy `config` PATCHed onto the project as the dashboard of old does; the 200 answer's body. */
export async function patchLegacyConfig(server: TestServer, project: TestProject, config: unknown) {
  const response = await server.request("/api/v1/internal/projects/current", {
    method: "PATCH",
    headers: project.headers("admin"),
    body: { config },
  });
  expect(response.status, response.text).toBe(200);
  return response.body;
}
