import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
import { expectKnownError } from "../../testing/known-errors.ts";
import { dataVaultEntries } from "./schema.ts";

let server: TestServer;
let project: TestProject;
beforeAll(async () => {
  server = await createTestServer();
  project = await server.createProject("Vault owner");
  await project.configure({ "dataVault.stores.secrets": { displayName: "Secrets" } }, "environment");
});
afterAll(() => server.close());

// What the official SDK sends: base64 of a hash, and base64 of its own ciphertext.
const hashedKey = Buffer.from("a-derived-key-hash-of-32-bytes!!").toString("base64");
const encryptedValue = Buffer.from("client-side ciphertext of the value").toString("base64");

function vault(
  action: "get" | "set",
  body: unknown,
  options: { store?: string; as?: TestProject; access?: "client" | "server" | "admin" } = {},
) {
  const caller = options.as ?? project;
  return server.request(`/api/v1/data-vault/stores/${options.store ?? "secrets"}/${action}`, {
    method: "POST",
    headers: caller.headers(options.access ?? "server"),
    body,
  });
}

describe("data vault", () => {
  it("stores a value, reads it back and replaces it (server and admin)", async () => {
    const set = await vault("set", { hashed_key: hashedKey, encrypted_value: encryptedValue });
    expect([set.status, set.body]).toEqual([200, { success: true }]);
    const got = await vault("get", { hashed_key: hashedKey });
    expect([got.status, got.body]).toEqual([200, { encrypted_value: encryptedValue }]);

    await vault("set", { hashed_key: hashedKey, encrypted_value: "replaced" }, { access: "admin" });
    const again = await vault("get", { hashed_key: hashedKey }, { access: "admin" });
    expect(again.body).toEqual({ encrypted_value: "replaced" });
  });

  it("keeps neither the hashed key nor the value readable at rest", async () => {
    const key = Buffer.from("another key hash").toString("base64");
    await vault("set", { hashed_key: key, encrypted_value: "plain-looking-ciphertext-123" });
    const rows = await server.deps.db
      .select()
      .from(dataVaultEntries)
      .where(eq(dataVaultEntries.projectId, project.id));
    const text = JSON.stringify(rows);
    expect(rows.length).toBe(2);
    expect(text).not.toContain(key);
    expect(text).not.toContain("plain-looking-ciphertext-123");
    expect(text).not.toContain(Buffer.from("plain-looking-ciphertext-123").toString("base64"));
  });

  it("answers the protocol's errors for an unknown store and an unknown key", async () => {
    expectKnownError(
      await vault("get", { hashed_key: hashedKey }, { store: "nope" }),
      400,
      "DATA_VAULT_STORE_DOES_NOT_EXIST",
      { store_id: "nope" },
    );
    expectKnownError(
      await vault("set", { hashed_key: hashedKey, encrypted_value: "x" }, { store: "nope" }),
      400,
      "DATA_VAULT_STORE_DOES_NOT_EXIST",
      { store_id: "nope" },
    );
    expectKnownError(
      await vault("get", { hashed_key: "bm90LXN0b3JlZA==" }),
      400,
      "DATA_VAULT_STORE_HASHED_KEY_DOES_NOT_EXIST",
      { store_id: "secrets", hashed_key: "bm90LXN0b3JlZA==" },
    );
    const empty = await vault("set", { hashed_key: "", encrypted_value: "x" });
    expectKnownError(empty, 400, "SCHEMA_ERROR");
  });

  it("keeps each project's stores apart and refuses clients", async () => {
    const other = await server.createProject("Other vault owner");
    await other.configure({ "dataVault.stores.secrets": {} });
    expectKnownError(
      await vault("get", { hashed_key: hashedKey }, { as: other }),
      400,
      "DATA_VAULT_STORE_HASHED_KEY_DOES_NOT_EXIST",
    );
    const client = await vault("get", { hashed_key: hashedKey }, { access: "client" });
    expectKnownError(client, 401, "INSUFFICIENT_ACCESS_TYPE");
  });

  it("gives a store without a display name the protocol's default", async () => {
    await project.configure({ "dataVault.stores.unnamed": {} });
    const config = await server.request("/api/v1/internal/config", { headers: project.headers("admin") });
    expect(JSON.parse(config.body.config_string).dataVault.stores).toEqual({
      secrets: { displayName: "Secrets" },
      unnamed: { displayName: "Unnamed Vault" },
    });
  });
});
