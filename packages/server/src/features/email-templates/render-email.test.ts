import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  BUILT_IN_TEMPLATE_IDS,
  DEFAULT_DARK_THEME_ID,
  DEFAULT_LIGHT_THEME_ID,
} from "../../email-rendering/index.ts";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";

let server: TestServer;
let project: TestProject;

beforeAll(async () => {
  server = await createTestServer();
  project = await server.createProject("Render Co");
});
afterAll(() => server.close());

const render = (body: unknown, headers = project.headers("admin")) =>
  server.request("/api/v1/emails/render-email", { method: "POST", headers, body });

const TEMPLATE = `import { Text } from "@react-email/components";
import { NotificationCategory, Subject, type Props } from "@gatehouse/emails";
export function EmailTemplate({ user, project }: Props) {
  return (
    <>
      <Subject value={"For " + user.displayName} />
      <NotificationCategory value="Marketing" />
      <Text>Project: {project.displayName}</Text>
    </>
  );
}`;

const THEME = `export function EmailTheme({ children }) { return <main data-theme="inline">{children}</main>; }`;

describe("POST /emails/render-email", () => {
  it("renders a stored template in the selected theme, in preview mode", async () => {
    const response = await render({ template_id: BUILT_IN_TEMPLATE_IDS.password_reset });
    expect(response.status).toBe(200);
    expect(response.body.subject).toBe("Reset your password at My Project");
    expect(response.body.notification_category).toBe("Transactional");
    expect(response.body.html).toContain("Hi John Doe,");
    expect(response.body.html).toContain("background-color:#f4f4f5"); // the Light theme's page colour
  });

  it("renders each of the four body shapes", async () => {
    const stored = await render({ template_id: BUILT_IN_TEMPLATE_IDS.magic_link, theme_tsx_source: THEME });
    expect(stored.status).toBe(200);
    expect(stored.body.html).toContain('<main data-theme="inline">');

    const inline = await render({ template_tsx_source: TEMPLATE, theme_id: DEFAULT_DARK_THEME_ID });
    expect(inline.status).toBe(200);
    expect(inline.body).toMatchObject({ subject: "For John Doe", notification_category: "Marketing" });
    expect(inline.body.html).toContain("background-color:#09090b"); // the Dark theme's page colour

    const both = await render({
      template_tsx_source: TEMPLATE,
      theme_tsx_source: THEME,
      editable_markers: false,
    });
    expect(both.body.html).toContain('<main data-theme="inline"><p');
    expect(both.body.html).toContain("Project: My Project");

    const noTheme = await render({ template_tsx_source: TEMPLATE, theme_id: false });
    expect(noTheme.status).toBe(200);
    expect(noTheme.body.html).not.toContain("background-color:#f4f4f5");
  });

  it("leaves subject and category out when the template has no markers", async () => {
    const response = await render({
      template_tsx_source: 'export function EmailTemplate() { return "bare"; }',
    });
    expect(response.status).toBe(200);
    expect(response.body).not.toHaveProperty("subject");
    expect(response.body).not.toHaveProperty("notification_category");
  });

  it("answers unknown template and theme ids with a plain 400", async () => {
    const unknown = "0b7c5f0e-7d4e-4b8e-9c55-1d1b4c0e2a11";
    for (const body of [{ template_id: unknown }, { template_tsx_source: TEMPLATE, theme_id: unknown }]) {
      const response = await render(body);
      expect(response.status).toBe(400);
      expect(response.headers.get("x-stack-known-error")).toBeNull();
    }
  });

  it("refuses bodies that are not one of the four shapes", async () => {
    for (const body of [
      {},
      { theme_id: false },
      { template_id: BUILT_IN_TEMPLATE_IDS.magic_link, template_tsx_source: TEMPLATE },
      { template_tsx_source: TEMPLATE, theme_id: false, theme_tsx_source: THEME },
      { template_id: "not-a-uuid" },
      { template_tsx_source: TEMPLATE, editable_source: "everything" },
    ]) {
      const response = await render(body);
      expect(response.status).toBe(400);
      expect(response.headers.get("x-stack-known-error")).toBe("SCHEMA_ERROR");
    }
  });

  it("answers compile and render errors as EMAIL_RENDERING_ERROR", async () => {
    const compile = await render({
      template_tsx_source: "export function EmailTemplate() {\n  return <b>;\n}",
    });
    expect(compile.status).toBe(400);
    expect(compile.headers.get("x-stack-known-error")).toBe("EMAIL_RENDERING_ERROR");
    expect(compile.body.details.error).toMatch(/^Compile error: template\.tsx:\d+:\d+: /);

    const imports = await render({
      template_tsx_source:
        'import { readFileSync } from "node:fs";\nexport const EmailTemplate = () => readFileSync("/etc/passwd");',
    });
    expect(imports.status).toBe(400);
    expect(imports.body.details.error).toContain('Cannot import "node:fs"');

    const memory = await render({
      template_tsx_source: "export function EmailTemplate() { return new Array(1e9).fill(0); }",
    });
    expect(memory.status).toBe(400);
    expect(memory.headers.get("x-stack-known-error")).toBe("EMAIL_RENDERING_ERROR");
    expect(memory.body.details.error).toContain("MB of memory and was stopped");
  });

  it("keeps answering other requests while a hostile render runs, then stops it with a 400", async () => {
    let settled = false;
    const hostile = render({
      template_tsx_source: "export function EmailTemplate() { for (;;) {} }",
    }).finally(() => {
      settled = true;
    });
    const health = await server.request("/health");
    expect(health.status).toBe(200);
    const current = await server.request("/api/v1/projects/current", { headers: project.headers("client") });
    expect(current.status).toBe(200);
    expect(settled).toBe(false);
    const response = await hostile;
    expect(response.status).toBe(400);
    expect(response.headers.get("x-stack-known-error")).toBe("EMAIL_RENDERING_ERROR");
    expect(response.body.details.error).toMatch(/took longer than \d+ ms and was stopped/);
  }, 60_000);

  it("is for admins only", async () => {
    for (const access of ["client", "server"] as const) {
      const response = await render({ template_tsx_source: TEMPLATE }, project.headers(access));
      expect(response.status).toBe(401);
    }
  });
});

describe("the preview limit (emailPreviewPerOwner)", () => {
  it("answers 429 with Retry-After past the project's number, for render-email and theme saves alike", async () => {
    const limited = await server.createProject("Preview Limit Co");
    await limited.configure({ "gatehouse.rateLimits.emailPreviewPerOwner": { limit: 2 } });
    const admin = limited.headers("admin");
    const preview = { template_id: BUILT_IN_TEMPLATE_IDS.password_reset };
    expect((await render(preview, admin)).status).toBe(200);
    expect((await render(preview, admin)).status).toBe(200);
    const refused = await render(preview, admin);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(Number(refused.headers.get("retry-after"))).toBeLessThanOrEqual(3600);

    // A theme save's test render is a preview too: refused, and nothing is saved.
    const themePath = `/api/v1/internal/email-themes/${DEFAULT_LIGHT_THEME_ID}`;
    const saved = await server.request(themePath, {
      method: "PATCH",
      headers: admin,
      body: { tsx_source: THEME },
    });
    expect(saved.status).toBe(429);
    const theme = await server.request(themePath, { headers: admin });
    expect(theme.body.tsx_source).not.toBe(THEME);

    // Other projects count apart; raising the project's number lets the owner go on in the same window.
    expect((await render(preview)).status).toBe(200);
    await limited.configure({ "gatehouse.rateLimits.emailPreviewPerOwner": { limit: 5 } });
    expect((await render(preview, admin)).status).toBe(200);
  });
});
