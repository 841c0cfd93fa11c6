import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
import { projectApiKeySets } from "./schema.ts";

let server: TestServer;
let project: TestProject;

beforeAll(async () => {
  server = await createTestServer();
  project = await server.createProject("Keys");
});
afterAll(() => server.close());

const create = (body: Record<string, unknown>) =>
  server.request("/api/v1/internal/api-keys", { method: "POST", headers: project.headers("admin"), body });

describe("/internal/api-keys", () => {
  it("creates a key set whose full keys are shown once and work at once", async () => {
    const response = await create({
      description: "Production backend",
      expires_at_millis: Date.now() + 86_400_000,
      has_publishable_client_key: true,
      has_secret_server_key: true,
      has_super_secret_admin_key: false,
    });
    expect(response.status).toBe(200);
    const created = response.body;
    expect(created.publishable_client_key).toMatch(/^pck_[0-9a-hjkmnp-tv-z]{45}$/);
    expect(created.secret_server_key).toMatch(/^ssk_[0-9a-hjkmnp-tv-z]{45}$/);
    expect(created).not.toHaveProperty("super_secret_admin_key");

    const asServer = await server.request("/api/v1/projects/current", {
      headers: { ...project.headers("server"), "x-stack-secret-server-key": created.secret_server_key },
    });
    expect(asServer.status).toBe(200);

    const listed = await server.request("/api/v1/internal/api-keys", { headers: project.headers("admin") });
    const item = listed.body.items.find((k: any) => k.id === created.id);
    expect(item.publishable_client_key).toEqual({ last_four: created.publishable_client_key.slice(-4) });
    expect(item.secret_server_key).toEqual({ last_four: created.secret_server_key.slice(-4) });
    expect(JSON.stringify(listed.body)).not.toContain(created.secret_server_key);

    const [row] = await server.deps.db
      .select()
      .from(projectApiKeySets)
      .where(eq(projectApiKeySets.id, created.id));
    expect(row!.secretServerKeyHash).not.toContain(created.secret_server_key);
    expect(row!.secretServerKeyHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it("revokes irreversibly; the revoked key stops working", async () => {
    const { body: created } = await create({
      description: "to revoke",
      has_publishable_client_key: false,
      has_secret_server_key: true,
      has_super_secret_admin_key: false,
    });
    const headers = { ...project.headers("server"), "x-stack-secret-server-key": created.secret_server_key };
    expect((await server.request("/api/v1/projects/current", { headers })).status).toBe(200);

    const revoked = await server.request(`/api/v1/internal/api-keys/${created.id}`, {
      method: "PATCH",
      headers: project.headers("admin"),
      body: { revoked: true, description: "revoked now" },
    });
    expect(revoked.status).toBe(200);
    expect(revoked.body.description).toBe("revoked now");
    expect(typeof revoked.body.manually_revoked_at_millis).toBe("number");

    const after = await server.request("/api/v1/projects/current", { headers });
    expect(after.headers.get("x-stack-known-error")).toBe("INVALID_SECRET_SERVER_KEY");

    const unrevoke = await server.request(`/api/v1/internal/api-keys/${created.id}`, {
      method: "PATCH",
      headers: project.headers("admin"),
      body: { revoked: false },
    });
    expect(unrevoke.headers.get("x-stack-known-error")).toBe("SCHEMA_ERROR");
  });

  it("refuses bad input with 4xx", async () => {
    const noKeys = await create({
      description: "none",
      has_publishable_client_key: false,
      has_secret_server_key: false,
      has_super_secret_admin_key: false,
    });
    expect(noKeys.status).toBe(400);
    const past = await create({
      description: "past",
      expires_at_millis: Date.now() - 1000,
      has_publishable_client_key: true,
      has_secret_server_key: false,
      has_super_secret_admin_key: false,
    });
    expect(past.status).toBe(400);
    const missing = await create({ description: "x" });
    expect(missing.headers.get("x-stack-known-error")).toBe("SCHEMA_ERROR");
    // A NUL byte cannot be stored in a PostgreSQL text column: refused up front, not a failed insert.
    const nul = await create({
      description: "nul\u0000byte",
      has_publishable_client_key: true,
      has_secret_server_key: false,
      has_super_secret_admin_key: false,
    });
    expect(nul.headers.get("x-stack-known-error"), nul.text).toBe("SCHEMA_ERROR");
    const notFound = await server.request("/api/v1/internal/api-keys/6f1c1f0e-7a57-4d5e-9d8f-0a1b2c3d4e5f", {
      headers: project.headers("admin"),
    });
    expect(notFound.status).toBe(404);
    const badId = await server.request("/api/v1/internal/api-keys/not-a-uuid", {
      headers: project.headers("admin"),
    });
    expect(badId.headers.get("x-stack-known-error")).toBe("SCHEMA_ERROR");
  });

  it("never shows one project's key sets to another", async () => {
    const other = await server.createProject("Other");
    const { body: created } = await create({
      description: "mine",
      has_publishable_client_key: true,
      has_secret_server_key: false,
      has_super_secret_admin_key: false,
    });
    const read = await server.request(`/api/v1/internal/api-keys/${created.id}`, {
      headers: other.headers("admin"),
    });
    expect(read.status).toBe(404);
    const list = await server.request("/api/v1/internal/api-keys", { headers: other.headers("admin") });
    expect(list.body.items.map((k: any) => k.id)).not.toContain(created.id);
  });
});
