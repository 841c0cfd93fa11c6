import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { bootGatehouse } from "./bootstrap.ts";
import { readServerEnv } from "./env.ts";

const root = mkdtempSync(path.join(tmpdir(), "gatehouse-boot-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("bootGatehouse on the embedded database", () => {
  it("creates a data dir that does not exist yet when the secret comes from the environment", async () => {
    // With GATEHOUSE_SECRET set nothing else creates the directory before PGlite opens it.
    const dataDir = path.join(root, "not", "there", "yet");
    const env = readServerEnv({
      GATEHOUSE_DATA_DIR: dataDir,
      GATEHOUSE_SECRET: "a-secret-that-is-long-enough-for-the-check-0123",
    });
    expect(existsSync(dataDir)).toBe(false);

    const gatehouse = await bootGatehouse(env, undefined, { emailWorker: false });
    try {
      expect(gatehouse.database.kind).toBe("pglite");
      const keys = gatehouse.seed.generatedKeys!;
      const response = await gatehouse.app.request("/api/v1/projects/current", {
        headers: {
          "x-stack-project-id": "internal",
          "x-stack-access-type": "client",
          "x-stack-publishable-client-key": keys.publishableClientKey!,
        },
      });
      expect(response.status, await response.clone().text()).toBe(200);
    } finally {
      await gatehouse.close();
    }
    expect(existsSync(path.join(dataDir, "pglite", "PG_VERSION"))).toBe(true);
    // The secret came from the environment, so none was written.
    expect(existsSync(path.join(dataDir, "secret"))).toBe(false);
  }, 60_000);
});
