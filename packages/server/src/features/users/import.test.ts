import { hash as bcryptHash } from "@node-rs/bcrypt";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
import { users } from "./schema.ts";

let server: TestServer;
let project: TestProject;

beforeAll(async () => {
  server = await createTestServer();
  project = await server.createProject("User import");
  await project.configure({ "auth.password.allowSignIn": true });
});
afterAll(() => server.close());

const importBatch = (body: unknown, accessType: "server" | "admin" = "admin") =>
  server.request("/api/v1/users/import", { method: "POST", headers: project.headers(accessType), body });

const signIn = (email: string, password: string) =>
  server.request("/api/v1/auth/password/sign-in", {
    method: "POST",
    headers: project.headers("client"),
    body: { email, password },
  });

async function countUsers() {
  return (await server.deps.db.select().from(users).where(eq(users.projectId, project.id))).length;
}

describe("POST /users/import", () => {
  it("creates a batch whose imported bcrypt hashes sign in, and rehashes them to Argon2id", async () => {
    const hash = await bcryptHash("old-password-1", { cost: 4 });
    const response = await importBatch({
      users: [
        { primary_email: "a@import.example", primary_email_verified: true, password_hash: hash },
        { primary_email: "b@import.example", display_name: "B" },
      ],
    });
    expect(response.status).toBe(200);
    expect(response.body.imported).toBe(2);
    expect(response.body.errors).toEqual([]);
    expect(response.body.user_ids).toHaveLength(2);

    expect((await signIn("a@import.example", "old-password-1")).status).toBe(200);
    const [row] = await server.deps.db.select().from(users).where(eq(users.id, response.body.user_ids[0]));
    expect(row!.passwordHash).toMatch(/^\$argon2id\$/);
    expect((await signIn("a@import.example", "old-password-1")).status).toBe(200);
  });

  it("writes nothing when any entry is invalid, naming each by index", async () => {
    const before = await countUsers();
    const response = await importBatch({
      users: [
        { primary_email: "fine@import.example" },
        { primary_email: "not an email" },
        { primary_email: "a@import.example" },
        { primary_email: "twice@import.example" },
        { primary_email: "twice@import.example" },
        { password_hash: "md5:abc" },
      ],
    });
    expect(response.status).toBe(200);
    expect(response.body.imported).toBe(0);
    expect(response.body.errors.map((error: { index: number }) => error.index)).toEqual([1, 2, 4, 5]);
    expect(response.body.errors[1].message).toContain("already belongs");
    expect(response.body.errors[2].message).toContain("entry 3");
    expect(response.body.errors[3].message).toContain("password_hash");
    expect(await countUsers()).toBe(before);
  });

  it("checks without writing on dry_run, and imports the valid entries on skip_invalid", async () => {
    const before = await countUsers();
    const batch = [{ primary_email: "dry@import.example" }, { primary_email: 5 }];
    const dry = await importBatch({ users: batch, dry_run: true });
    expect(dry.body).toMatchObject({ imported: 0, errors: [{ index: 1 }] });
    expect(await countUsers()).toBe(before);

    const skipped = await importBatch({ users: batch, skip_invalid: true });
    expect(skipped.body).toMatchObject({ imported: 1, errors: [{ index: 1 }] });
    expect(await countUsers()).toBe(before + 1);
  });

  it("is for admins only, and refuses empty or oversized batches", async () => {
    expect((await importBatch({ users: [{}] }, "server")).status).toBe(401);
    expect((await importBatch({ users: [] })).status).toBe(400);
    expect((await importBatch({ users: Array.from({ length: 1001 }, () => ({})) })).status).toBe(400);
  });
});

describe("GET /users/export", () => {
  it("pages through users with their password hashes in the import shape", async () => {
    const hash = await bcryptHash("exported-password", { cost: 4 });
    await importBatch({ users: [{ primary_email: "export@import.example", password_hash: hash }] });
    const response = await server.request("/api/v1/users/export?limit=200", {
      headers: project.headers("admin"),
    });
    expect(response.status).toBe(200);
    const exported = response.body.items.find(
      (item: { primary_email: string }) => item.primary_email === "export@import.example",
    );
    expect(exported).toMatchObject({ password_hash: hash, primary_email_auth_enabled: true });
    expect(response.body.items.length).toBe(await countUsers());
    const asServer = await server.request("/api/v1/users/export", { headers: project.headers("server") });
    expect(asServer.status).toBe(401);
  });
});
