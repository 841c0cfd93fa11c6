import type { AccessType } from "../../http/access-type.ts";
import type { TestProject, TestServer } from "../../testing/harness.ts";

/** The config override routes of one project, as the SDK's and the CLI's calls send them (admin keys unless told). */
export function configOverrideApi(server: TestServer, project: TestProject) {
  const path = (level: string) => `/api/v1/internal/config/override/${level}`;
  const read = (level: string, access: AccessType = "admin") =>
    server.request(path(level), { headers: project.headers(access) });
  /** PATCH with the override's text as sent (bad JSON included). */
  const patchText = (level: string, text: string, access: AccessType = "admin") =>
    server.request(path(level), {
      method: "PATCH",
      headers: project.headers(access),
      body: { config_override_string: text },
    });
  return {
    read,
    patchText,
    patch: (level: string, override: unknown, access: AccessType = "admin") =>
      patchText(level, JSON.stringify(override), access),
    put: (level: string, body: Record<string, unknown>, access: AccessType = "admin") =>
      server.request(path(level), { method: "PUT", headers: project.headers(access), body }),
    /** The override a level stores, parsed. */
    stored: async (level: string) => JSON.parse((await read(level)).body.config_string),
  };
}
