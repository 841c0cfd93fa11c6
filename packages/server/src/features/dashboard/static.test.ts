import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mountDashboard } from "./static.ts";

let dir: string;
let secretDir: string;

function appFor(distDir: string) {
  const app = new Hono();
  app.get("/api/v1/thing", (c) => c.json({ ok: true }));
  mountDashboard(app, distDir);
  app.notFound((c) => c.text("Not found", 404));
  return app;
}

beforeAll(async () => {
  const base = await mkdtemp(join(tmpdir(), "dashboard-static-"));
  dir = join(base, "dist");
  secretDir = base;
  await mkdir(join(dir, "assets"), { recursive: true });
  await writeFile(join(dir, "index.html"), "<html>shell</html>");
  await writeFile(join(dir, "assets", "app-1.js"), "console.log(1)");
  await writeFile(join(base, "secret.txt"), "do not serve");
});
afterAll(() => rm(secretDir, { recursive: true, force: true }));

describe("dashboard static files", () => {
  it("serves files with their type, and the shell for app paths", async () => {
    const app = appFor(dir);
    const asset = await app.request("/assets/app-1.js");
    expect(asset.status).toBe(200);
    expect(asset.headers.get("content-type")).toContain("text/javascript");
    expect(asset.headers.get("cache-control")).toContain("immutable");
    for (const path of ["/", "/projects/abc/users", "/handler/sign-in"]) {
      const page = await app.request(path);
      expect(page.status).toBe(200);
      expect(await page.text()).toBe("<html>shell</html>");
      expect(page.headers.get("content-type")).toContain("text/html");
    }
  });

  it("leaves the API, health and missing assets alone", async () => {
    const app = appFor(dir);
    expect(await (await app.request("/api/v1/thing")).json()).toEqual({ ok: true });
    expect((await app.request("/api/v1/nothing")).status).toBe(404);
    expect((await app.request("/health")).status).toBe(404);
    expect((await app.request("/assets/old.js")).status).toBe(404);
    expect((await app.request("/", { method: "POST" })).status).toBe(404);
  });

  it("never reads outside the build folder", async () => {
    const app = appFor(dir);
    for (const path of ["/../secret.txt", "/%2e%2e/secret.txt", "/assets/..%2f..%2fsecret.txt"]) {
      const response = await app.request(path);
      expect(await response.text()).not.toContain("do not serve");
    }
    expect((await app.request("/%E0%A4%A")).status).toBe(404);
  });

  it("says how to build when there is no build", async () => {
    const response = await appFor(join(dir, "missing")).request("/");
    expect(response.status).toBe(503);
    expect(await response.text()).toContain("npm run build");
  });
});

describe("security headers of the pages", () => {
  it("every page (dashboard, /handler) forbids inline script, framing and leaking its URL to other sites", async () => {
    const app = appFor(dir);
    for (const path of ["/", "/handler/sign-in", "/index.html"]) {
      const page = await app.request(path);
      const csp = page.headers.get("content-security-policy") ?? "";
      const scriptSrc = csp.split(";").find((directive) => directive.trim().startsWith("script-src")) ?? "";
      expect(scriptSrc.trim(), path).toBe("script-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("object-src 'none'");
      expect(page.headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin");
      expect(page.headers.get("permissions-policy")).toContain("camera=()");
      expect(page.headers.get("permissions-policy")).toContain("publickey-credentials-get=(self)");
    }
    // Scripts and styles need no page policy of their own.
    expect((await app.request("/assets/app-1.js")).headers.get("content-security-policy")).toBeNull();
  });
});
