import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { normalizeOverride } from "../../config/index.ts";
import {
  BUILT_IN_TEMPLATE_IDS,
  BUILT_IN_TEMPLATES,
  BUILT_IN_THEMES,
  DEFAULT_DARK_THEME_ID,
} from "../../email-rendering/index.ts";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";

let server: TestServer;
let shared: TestProject;
let custom: TestProject;

beforeAll(async () => {
  server = await createTestServer();
  shared = await server.createProject("Reset Shared Co");
  custom = await server.createProject("Reset Custom Co");
  await custom.configure({
    "emails.server": { isShared: false, host: "smtp.example.com", port: 587, senderEmail: "no@example.com" },
  });
});
afterAll(() => server.close());

const TEMPLATE = `import { Text } from "@react-email/components";
import { NotificationCategory, Subject } from "@stackframe/emails";
export function EmailTemplate() {
  return (
    <>
      <Subject value="Edited" />
      <NotificationCategory value="Transactional" />
      <Text>An edited verification email</Text>
    </>
  );
}`;

const THEME = `import { Body, Html } from "@react-email/components";
export function EmailTheme({ children }) { return <Html><Body><main data-edited="yes">{children}</main></Body></Html>; }`;

const builtInTemplate = (id: string) => BUILT_IN_TEMPLATES.find((t) => t.id === id)!;
const builtInTheme = (id: string) => BUILT_IN_THEMES.find((t) => t.id === id)!;

const call = (project: TestProject, method: string, path: string, body?: unknown) =>
  server.request(`/api/v1${path}`, { method, headers: project.headers("admin"), body });

const templateOf = async (project: TestProject, id: string) =>
  ((await call(project, "GET", "/internal/email-templates")).body.templates as { id: string }[]).find(
    (t) => t.id === id,
  );

describe("POST /internal/email-templates/{id}/reset", () => {
  const id = BUILT_IN_TEMPLATE_IDS.email_verification;

  it("restores the shipped source of an edited built-in template and keeps its theme choice", async () => {
    const patched = await call(custom, "PATCH", `/internal/email-templates/${id}`, {
      tsx_source: TEMPLATE,
      theme_id: DEFAULT_DARK_THEME_ID,
    });
    expect(patched.status).toBe(200);
    expect(await templateOf(custom, id)).toMatchObject({ tsx_source: TEMPLATE });

    const reset = await call(custom, "POST", `/internal/email-templates/${id}/reset`);
    expect(reset.status).toBe(200);
    expect(reset.body).toEqual({
      id,
      display_name: builtInTemplate(id).displayName,
      tsx_source: builtInTemplate(id).tsxSource,
      theme_id: DEFAULT_DARK_THEME_ID,
    });
    expect(await templateOf(custom, id)).toEqual(reset.body);
    // The edit is gone from the stored override, not shadowed by a copy of the shipped source.
    const override = await call(custom, "GET", "/internal/config/override/environment");
    const stored = (normalizeOverride(JSON.parse(override.body.config_string as string)) as any).emails
      .templates[id];
    expect(stored).toEqual({ themeId: DEFAULT_DARK_THEME_ID });
  });

  it("writes the shipped source over an edit made at another level", async () => {
    const other = BUILT_IN_TEMPLATE_IDS.password_reset;
    await custom.configure({ [`emails.templates.${other}.tsxSource`]: TEMPLATE }, "project");
    expect(await templateOf(custom, other)).toMatchObject({ tsx_source: TEMPLATE });
    const reset = await call(custom, "POST", `/internal/email-templates/${other}/reset`);
    expect(reset.status).toBe(200);
    expect(await templateOf(custom, other)).toMatchObject({ tsx_source: builtInTemplate(other).tsxSource });
  });

  it("answers 404 for an owner's own template and an unknown id, SCHEMA_ERROR for a non-uuid", async () => {
    const created = await call(custom, "POST", "/internal/email-templates", { display_name: "Digest" });
    for (const target of [created.body.id as string, "0b7c5f0e-7d4e-4b8e-9c55-1d1b4c0e2a11"]) {
      const response = await call(custom, "POST", `/internal/email-templates/${target}/reset`);
      expect(response.status).toBe(404);
      expect(response.headers.get("x-stack-known-error")).toBeNull();
    }
    const bad = await call(custom, "POST", "/internal/email-templates/not-a-uuid/reset");
    expect(bad.status).toBe(400);
    expect(bad.headers.get("x-stack-known-error")).toBe("SCHEMA_ERROR");
  });

  it("needs a custom email server", async () => {
    const response = await call(shared, "POST", `/internal/email-templates/${id}/reset`);
    expect(response.status).toBe(400);
    expect(response.headers.get("x-stack-known-error")).toBe("REQUIRES_CUSTOM_EMAIL_SERVER");
  });

  it("is for admins only", async () => {
    const response = await server.request(`/api/v1/internal/email-templates/${id}/reset`, {
      method: "POST",
      headers: custom.headers("server"),
    });
    expect(response.status).toBe(401);
  });
});

describe("POST /internal/email-themes/{id}/reset", () => {
  it("restores the shipped source of an edited built-in theme, on the shared server too", async () => {
    const patched = await call(shared, "PATCH", `/internal/email-themes/${DEFAULT_DARK_THEME_ID}`, {
      tsx_source: THEME,
    });
    expect(patched.status).toBe(200);
    const reset = await call(shared, "POST", `/internal/email-themes/${DEFAULT_DARK_THEME_ID}/reset`);
    expect(reset.status).toBe(200);
    expect(reset.body).toEqual({
      id: DEFAULT_DARK_THEME_ID,
      display_name: "Default Dark",
      tsx_source: builtInTheme(DEFAULT_DARK_THEME_ID).tsxSource,
    });
    const read = await call(shared, "GET", `/internal/email-themes/${DEFAULT_DARK_THEME_ID}`);
    expect(read.body.tsx_source).toBe(builtInTheme(DEFAULT_DARK_THEME_ID).tsxSource);
  });

  it("answers 404 for an owner's own theme and an unknown id", async () => {
    const created = await call(shared, "POST", "/internal/email-themes", { display_name: "Mine" });
    for (const target of [created.body.id as string, "nope"]) {
      const response = await call(shared, "POST", `/internal/email-themes/${target}/reset`);
      expect(response.status).toBe(404);
    }
  });
});

describe("POST /emails/render-email with variables (Gatehouse extension)", () => {
  it("lays the given variables over the template's preview variables", async () => {
    const response = await call(shared, "POST", "/emails/render-email", {
      template_id: BUILT_IN_TEMPLATE_IDS.team_invitation,
      variables: { teamDisplayName: "The Night Shift" },
    });
    expect(response.status).toBe(200);
    expect(response.body.html).toContain("The Night Shift");
    expect(response.body.subject).toContain("The Night Shift");
  });

  it("refuses variables that are not an object", async () => {
    const response = await call(shared, "POST", "/emails/render-email", {
      template_id: BUILT_IN_TEMPLATE_IDS.team_invitation,
      variables: ["x"],
    });
    expect(response.status).toBe(400);
    expect(response.headers.get("x-stack-known-error")).toBe("SCHEMA_ERROR");
  });
});
