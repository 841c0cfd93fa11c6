import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  DEFAULT_COLORFUL_THEME_ID,
  DEFAULT_DARK_THEME_ID,
  DEFAULT_LIGHT_THEME_ID,
  NEW_THEME_SOURCE,
} from "../../email-rendering/index.ts";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";

let server: TestServer;
let project: TestProject;

beforeAll(async () => {
  server = await createTestServer();
  project = await server.createProject("Theme Co");
});
afterAll(() => server.close());

const admin = () => project.headers("admin");

const THEME_SOURCE = `import { Body, Html } from "@react-email/components";
import type { ThemeProps } from "@stackframe/emails";
export function EmailTheme({ children }: ThemeProps) {
  return <Html><Body><section data-theme="mine">{children}</section></Body></Html>;
}`;

describe("/internal/email-themes", () => {
  it("lists the three built-in themes by default", async () => {
    const response = await server.request("/api/v1/internal/email-themes", { headers: admin() });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      themes: [
        { id: DEFAULT_LIGHT_THEME_ID, display_name: "Default Light" },
        { id: DEFAULT_DARK_THEME_ID, display_name: "Default Dark" },
        { id: DEFAULT_COLORFUL_THEME_ID, display_name: "Default Colorful" },
      ],
    });
  });

  it("creates a theme from the Light source, reads, patches and deletes it", async () => {
    const created = await server.request("/api/v1/internal/email-themes", {
      method: "POST",
      headers: admin(),
      body: { display_name: "Mine" },
    });
    expect(created.status).toBe(200);
    const id = created.body.id as string;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);

    const read = await server.request(`/api/v1/internal/email-themes/${id}`, { headers: admin() });
    expect(read.body).toEqual({ id, display_name: "Mine", tsx_source: NEW_THEME_SOURCE });

    const patched = await server.request(`/api/v1/internal/email-themes/${id}`, {
      method: "PATCH",
      headers: admin(),
      body: { tsx_source: THEME_SOURCE },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toEqual({ display_name: "Mine" });
    const reread = await server.request(`/api/v1/internal/email-themes/${id}`, { headers: admin() });
    expect(reread.body.tsx_source).toBe(THEME_SOURCE);

    // The render preview uses it when asked for it by id.
    const preview = await server.request("/api/v1/emails/render-email", {
      method: "POST",
      headers: admin(),
      body: { template_tsx_source: 'export function EmailTemplate() { return "hello"; }', theme_id: id },
    });
    expect(preview.status).toBe(200);
    expect(preview.body.html).toContain('<section data-theme="mine">hello</section>');

    const deleted = await server.request(`/api/v1/internal/email-themes/${id}`, {
      method: "DELETE",
      headers: admin(),
    });
    expect(deleted.status).toBe(200);
    const gone = await server.request(`/api/v1/internal/email-themes/${id}`, { headers: admin() });
    expect(gone.status).toBe(404);
    expect(gone.headers.get("x-stack-known-error")).toBeNull();
  });

  it("refuses a theme that does not render, and saves nothing", async () => {
    const before = await server.request(`/api/v1/internal/email-themes/${DEFAULT_DARK_THEME_ID}`, {
      headers: admin(),
    });
    const broken = await server.request(`/api/v1/internal/email-themes/${DEFAULT_DARK_THEME_ID}`, {
      method: "PATCH",
      headers: admin(),
      body: { tsx_source: "export function EmailTheme({ children }) {\n  return <div>{children</div>;\n}" },
    });
    expect(broken.status).toBe(400);
    expect(broken.headers.get("x-stack-known-error")).toBe("EMAIL_RENDERING_ERROR");
    expect(broken.body.details.error).toMatch(/^Compile error: theme\.tsx:2:/);

    const throwing = await server.request(`/api/v1/internal/email-themes/${DEFAULT_DARK_THEME_ID}`, {
      method: "PATCH",
      headers: admin(),
      body: { tsx_source: "export function EmailTheme() { return process.exit(1); }" },
    });
    expect(throwing.status).toBe(400);
    expect(throwing.body.details.error).toMatch(
      /^Render error: ReferenceError: 'process' is not defined \(at theme\.tsx:1:\d+\)$/,
    );

    const after = await server.request(`/api/v1/internal/email-themes/${DEFAULT_DARK_THEME_ID}`, {
      headers: admin(),
    });
    expect(after.body).toEqual(before.body);
  });

  it("edits a built-in theme and resets it with DELETE", async () => {
    const url = `/api/v1/internal/email-themes/${DEFAULT_COLORFUL_THEME_ID}`;
    const original = await server.request(url, { headers: admin() });
    await server.request(url, { method: "PATCH", headers: admin(), body: { tsx_source: THEME_SOURCE } });
    expect((await server.request(url, { headers: admin() })).body.tsx_source).toBe(THEME_SOURCE);
    expect((await server.request(url, { method: "DELETE", headers: admin() })).status).toBe(200);
    expect((await server.request(url, { headers: admin() })).body).toEqual(original.body);
  });

  it("refuses to delete the selected theme", async () => {
    const response = await server.request(`/api/v1/internal/email-themes/${DEFAULT_LIGHT_THEME_ID}`, {
      method: "DELETE",
      headers: admin(),
    });
    expect(response.status).toBe(400);
    expect(response.headers.get("x-stack-known-error")).toBeNull();
  });

  it("answers unknown ids with a plain 404", async () => {
    const unknown = "0b7c5f0e-7d4e-4b8e-9c55-1d1b4c0e2a11";
    for (const [method, body] of [
      ["GET", undefined],
      ["PATCH", { tsx_source: THEME_SOURCE }],
      ["DELETE", undefined],
    ] as const) {
      const response = await server.request(`/api/v1/internal/email-themes/${unknown}`, {
        method,
        headers: admin(),
        body,
      });
      expect(response.status).toBe(404);
      expect(response.headers.get("x-stack-known-error")).toBeNull();
    }
  });

  it("refuses bad bodies", async () => {
    for (const body of [{}, { display_name: "" }, { display_name: 5 }, { display_name: "x", extra: 1 }]) {
      const response = await server.request("/api/v1/internal/email-themes", {
        method: "POST",
        headers: admin(),
        body,
      });
      expect(response.status).toBe(400);
    }
    const patch = await server.request(`/api/v1/internal/email-themes/${DEFAULT_DARK_THEME_ID}`, {
      method: "PATCH",
      headers: admin(),
      body: { tsx_source: 1 },
    });
    expect(patch.status).toBe(400);
  });

  it("is for admins only", async () => {
    for (const access of ["client", "server"] as const) {
      const response = await server.request("/api/v1/internal/email-themes", {
        headers: project.headers(access),
      });
      expect(response.status).toBe(401);
      expect(response.headers.get("x-stack-known-error")).toBe("INSUFFICIENT_ACCESS_TYPE");
    }
  });
});
