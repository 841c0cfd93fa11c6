import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  BUILT_IN_TEMPLATE_IDS,
  BUILT_IN_TEMPLATES,
  DEFAULT_DARK_THEME_ID,
  NEW_TEMPLATE_SOURCE,
} from "../../email-rendering/index.ts";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
import { expectKnownError } from "../../testing/known-errors.ts";

let server: TestServer;
let shared: TestProject;
let custom: TestProject;

beforeAll(async () => {
  server = await createTestServer();
  shared = await server.createProject("Shared Co");
  custom = await server.createProject("Custom Co");
  await custom.configure({
    "emails.server": {
      isShared: false,
      host: "smtp.example.com",
      port: 587,
      senderEmail: "noreply@example.com",
    },
  });
});
afterAll(() => server.close());

const TEMPLATE = `import { Text } from "@react-email/components";
import { NotificationCategory, Subject, type Props } from "@stackframe/emails";
export function EmailTemplate({ variables }: Props<{ projectDisplayName: string }>) {
  return (
    <>
      <Subject value="Hello" />
      <NotificationCategory value="Transactional" />
      <Text>From {variables.projectDisplayName}</Text>
    </>
  );
}`;

const templatesOf = async (project: TestProject) =>
  (await server.request("/api/v1/internal/email-templates", { headers: project.headers("admin") })).body
    .templates as { id: string; display_name: string; tsx_source: string; theme_id?: unknown }[];

describe("/internal/email-templates", () => {
  it("lists the built-in templates", async () => {
    const templates = await templatesOf(shared);
    expect(templates.map((t) => [t.id, t.display_name])).toEqual(
      BUILT_IN_TEMPLATES.map((t) => [t.id, t.displayName]),
    );
    expect(templates[0]).not.toHaveProperty("theme_id");
    expect(templates[0]?.tsx_source).toBe(BUILT_IN_TEMPLATES[0]?.tsxSource);
  });

  it("requires a custom email server to create, change or delete", async () => {
    const id = BUILT_IN_TEMPLATE_IDS.password_reset;
    for (const [method, path, body] of [
      ["POST", "", { display_name: "New" }],
      ["PATCH", `/${id}`, { tsx_source: TEMPLATE }],
      ["DELETE", `/${id}`, undefined],
    ] as const) {
      const response = await server.request(`/api/v1/internal/email-templates${path}`, {
        method,
        headers: shared.headers("admin"),
        body,
      });
      expect(response.status).toBe(400);
      expect(response.headers.get("x-stack-known-error")).toBe("REQUIRES_CUSTOM_EMAIL_SERVER");
    }
  });

  it("creates, test-renders, saves and deletes a template", async () => {
    const created = await server.request("/api/v1/internal/email-templates", {
      method: "POST",
      headers: custom.headers("admin"),
      body: { display_name: "Digest" },
    });
    expect(created.status).toBe(200);
    const id = created.body.id as string;
    expect((await templatesOf(custom)).find((t) => t.id === id)).toEqual({
      id,
      display_name: "Digest",
      tsx_source: NEW_TEMPLATE_SOURCE,
    });

    const patched = await server.request(`/api/v1/internal/email-templates/${id}`, {
      method: "PATCH",
      headers: custom.headers("admin"),
      body: { tsx_source: TEMPLATE, theme_id: DEFAULT_DARK_THEME_ID },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.rendered_html).toContain("From Custom Co");
    expect((await templatesOf(custom)).find((t) => t.id === id)).toEqual({
      id,
      display_name: "Digest",
      tsx_source: TEMPLATE,
      theme_id: DEFAULT_DARK_THEME_ID,
    });

    // theme_id false (no theme) is kept; leaving theme_id out keeps what was stored.
    await server.request(`/api/v1/internal/email-templates/${id}`, {
      method: "PATCH",
      headers: custom.headers("admin"),
      body: { tsx_source: TEMPLATE, theme_id: false },
    });
    await server.request(`/api/v1/internal/email-templates/${id}`, {
      method: "PATCH",
      headers: custom.headers("admin"),
      body: { tsx_source: TEMPLATE },
    });
    expect((await templatesOf(custom)).find((t) => t.id === id)?.theme_id).toBe(false);

    const deleted = await server.request(`/api/v1/internal/email-templates/${id}`, {
      method: "DELETE",
      headers: custom.headers("admin"),
    });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({});
    expect((await templatesOf(custom)).some((t) => t.id === id)).toBe(false);
  });

  it("refuses a template without markers or that does not compile, and saves nothing", async () => {
    const id = BUILT_IN_TEMPLATE_IDS.email_verification;
    const noSubject = `import { NotificationCategory } from "@stackframe/emails";
export function EmailTemplate() { return <NotificationCategory value="Transactional" />; }`;
    const noCategory = `import { Subject } from "@stackframe/emails";
export function EmailTemplate() { return <Subject value="x" />; }`;
    for (const [source, expected] of [
      [noSubject, "<Subject"],
      [noCategory, "<NotificationCategory"],
      ["export function EmailTemplate() {\n  return 1 +;\n}", "Compile error: template.tsx:2:"],
    ] as const) {
      const response = await server.request(`/api/v1/internal/email-templates/${id}`, {
        method: "PATCH",
        headers: custom.headers("admin"),
        body: { tsx_source: source },
      });
      expect(response.status).toBe(400);
      expect(response.headers.get("x-stack-known-error")).toBe("EMAIL_RENDERING_ERROR");
      expect(response.body.details.error).toContain(expected);
    }
    expect((await templatesOf(custom)).find((t) => t.id === id)?.tsx_source).toBe(
      BUILT_IN_TEMPLATES[0]?.tsxSource,
    );
  });

  it("edits a built-in template and resets it with DELETE", async () => {
    const id = BUILT_IN_TEMPLATE_IDS.team_invitation;
    const url = `/api/v1/internal/email-templates/${id}`;
    const original = (await templatesOf(custom)).find((t) => t.id === id);
    await server.request(url, {
      method: "PATCH",
      headers: custom.headers("admin"),
      body: { tsx_source: TEMPLATE },
    });
    expect((await templatesOf(custom)).find((t) => t.id === id)?.tsx_source).toBe(TEMPLATE);
    // The shared server only sends the built-in set, so the edit is not what a shared-server project sees.
    expect((await templatesOf(shared)).find((t) => t.id === id)?.tsx_source).toBe(original?.tsx_source);
    expect((await server.request(url, { method: "DELETE", headers: custom.headers("admin") })).status).toBe(
      200,
    );
    expect((await templatesOf(custom)).find((t) => t.id === id)).toEqual(original);
  });

  it("answers a non-uuid id with SCHEMA_ERROR and an unknown one with a plain 404", async () => {
    const bad = await server.request("/api/v1/internal/email-templates/not-a-uuid", {
      method: "DELETE",
      headers: custom.headers("admin"),
    });
    expect(bad.status).toBe(400);
    expect(bad.headers.get("x-stack-known-error")).toBe("SCHEMA_ERROR");
    const unknown = "0b7c5f0e-7d4e-4b8e-9c55-1d1b4c0e2a11";
    for (const [method, body] of [
      ["PATCH", { tsx_source: TEMPLATE }],
      ["DELETE", undefined],
    ] as const) {
      const response = await server.request(`/api/v1/internal/email-templates/${unknown}`, {
        method,
        headers: custom.headers("admin"),
        body,
      });
      expect(response.status).toBe(404);
      expect(response.headers.get("x-stack-known-error")).toBeNull();
    }
  });

  it("refuses bad bodies and a theme_id naming no theme", async () => {
    const url = `/api/v1/internal/email-templates/${BUILT_IN_TEMPLATE_IDS.magic_link}`;
    for (const body of [
      {},
      { tsx_source: 3 },
      { tsx_source: TEMPLATE, theme_id: "dark" },
      { tsx_source: "", x: 1 },
    ]) {
      const response = await server.request(url, { method: "PATCH", headers: custom.headers("admin"), body });
      expect(response.status).toBe(400);
    }
    const unknownTheme = await server.request(url, {
      method: "PATCH",
      headers: custom.headers("admin"),
      body: { tsx_source: TEMPLATE, theme_id: "0b7c5f0e-7d4e-4b8e-9c55-1d1b4c0e2a11" },
    });
    expect(unknownTheme.status).toBe(400);
    expect(unknownTheme.headers.get("x-stack-known-error")).toBeNull();
  });

  it("refuses a second template of a name, built-in names included, with EMAIL_TEMPLATE_ALREADY_EXISTS", async () => {
    const create = (display_name: string) =>
      server.request("/api/v1/internal/email-templates", {
        method: "POST",
        headers: custom.headers("admin"),
        body: { display_name },
      });
    const first = await create("Monthly report");
    expect(first.status, first.text).toBe(200);
    for (const name of ["Monthly report", " monthly REPORT ", "Email Verification"]) {
      // As the official SDK reads it: KnownErrors.EmailTemplateAlreadyExists, a 409 without details.
      expectKnownError(await create(name), 409, "EMAIL_TEMPLATE_ALREADY_EXISTS", null);
    }
    expect((await templatesOf(custom)).filter((t) => t.display_name === "Monthly report")).toHaveLength(1);
  });

  it("is for admins only", async () => {
    for (const access of ["client", "server"] as const) {
      const response = await server.request("/api/v1/internal/email-templates", {
        headers: custom.headers(access),
      });
      expect(response.status).toBe(401);
    }
  });
});
