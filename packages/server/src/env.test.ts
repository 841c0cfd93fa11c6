import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { isLocalhostUrl, readServerEnv } from "./env.ts";
import { readAiSettings } from "./env-services.ts";

const root = mkdtempSync(path.join(tmpdir(), "gatehouse-env-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let dirs = 0;
/** A data dir that does not exist yet. */
function freshDataDir(): string {
  dirs += 1;
  return path.join(root, `data-${dirs}`);
}

const SECRET = "a-secret-that-is-long-enough-for-the-check-0123";

describe("development mode", () => {
  it("starts with the default base URL, and with any localhost one", () => {
    const dataDir = freshDataDir();
    expect(readServerEnv({ GATEHOUSE_DATA_DIR: dataDir, PORT: "9000" })).toMatchObject({
      baseUrl: "http://localhost:9000",
      isDevelopment: true,
    });
    for (const baseUrl of [
      "http://localhost:8102",
      "https://LOCALHOST/",
      "http://app.localhost:3000",
      "http://127.0.0.1:8102",
      "http://127.8.9.10",
      "http://[::1]:8102",
    ]) {
      expect(
        readServerEnv({ GATEHOUSE_DATA_DIR: dataDir, GATEHOUSE_BASE_URL: baseUrl }).isDevelopment,
        baseUrl,
      ).toBe(true);
    }
  });

  it("refuses a base URL others can reach, and says which variable to set", () => {
    for (const baseUrl of [
      "https://auth.example.com",
      "http://192.168.1.20:8102",
      "http://0.0.0.0:8102",
      "http://10.0.0.1",
      "http://localhost.example.com",
      "http://127.0.0.1.nip.io",
      "http://[::2]",
      "not a url",
    ]) {
      const dataDir = freshDataDir();
      expect(
        () => readServerEnv({ GATEHOUSE_DATA_DIR: dataDir, GATEHOUSE_BASE_URL: baseUrl }),
        baseUrl,
      ).toThrow(
        /^Refusing to start a development server at GATEHOUSE_BASE_URL=.*set NODE_ENV=production.*use a localhost GATEHOUSE_BASE_URL/,
      );
      // Refused before anything is written.
      expect(existsSync(dataDir), baseUrl).toBe(false);
    }
  });

  it("generates the secret into the data dir once, and reads it back on the next start", () => {
    const dataDir = freshDataDir();
    const first = readServerEnv({ GATEHOUSE_DATA_DIR: dataDir }).secret;
    expect(readFileSync(path.join(dataDir, "secret"), "utf8").trim()).toBe(first);
    expect(readServerEnv({ GATEHOUSE_DATA_DIR: dataDir }).secret).toBe(first);
  });
});

describe("production mode", () => {
  it("serves any base URL with a secret from the environment, and writes nothing", () => {
    const dataDir = freshDataDir();
    const env = readServerEnv({
      NODE_ENV: "production",
      GATEHOUSE_SECRET: SECRET,
      GATEHOUSE_BASE_URL: "https://auth.example.com/",
      GATEHOUSE_DATA_DIR: dataDir,
    });
    expect(env).toMatchObject({ isDevelopment: false, baseUrl: "https://auth.example.com", secret: SECRET });
    expect(existsSync(dataDir)).toBe(false);
  });

  it("requires GATEHOUSE_SECRET instead of generating one per instance", () => {
    const dataDir = freshDataDir();
    const start = () => readServerEnv({ NODE_ENV: "production", GATEHOUSE_DATA_DIR: dataDir });
    expect(start).toThrow(/^GATEHOUSE_SECRET is required when NODE_ENV=production: set it to 32 or more/);
    expect(existsSync(dataDir)).toBe(false);

    // A secret generated in development is not picked up silently, but the message says where it is.
    mkdirSync(dataDir);
    writeFileSync(path.join(dataDir, "secret"), `${SECRET}\n`);
    expect(start).toThrow(
      `This server generated one earlier in development: ${path.join(dataDir, "secret")}.`,
    );
  });

  it("still refuses a short secret", () => {
    expect(() =>
      readServerEnv({
        NODE_ENV: "production",
        GATEHOUSE_SECRET: "short",
        GATEHOUSE_DATA_DIR: freshDataDir(),
      }),
    ).toThrow("GATEHOUSE_SECRET must be at least 32 characters long");
  });
});

describe("email capacity", () => {
  it("defaults to 200 emails an hour, takes a whole number, and refuses anything else", () => {
    const dataDir = freshDataDir();
    expect(readServerEnv({ GATEHOUSE_DATA_DIR: dataDir }).emailCapacityPerHour).toBe(200);
    expect(
      readServerEnv({ GATEHOUSE_DATA_DIR: dataDir, GATEHOUSE_EMAIL_CAPACITY_PER_HOUR: "5000" })
        .emailCapacityPerHour,
    ).toBe(5000);
    for (const bad of ["0", "-3", "1.5", "lots"]) {
      expect(
        () => readServerEnv({ GATEHOUSE_DATA_DIR: dataDir, GATEHOUSE_EMAIL_CAPACITY_PER_HOUR: bad }),
        bad,
      ).toThrow("GATEHOUSE_EMAIL_CAPACITY_PER_HOUR");
    }
  });
});

describe("isLocalhostUrl", () => {
  it("knows loopback names and addresses only", () => {
    expect(isLocalhostUrl("http://127.0.0.1")).toBe(true);
    expect(isLocalhostUrl("http://[::1]")).toBe(true);
    expect(isLocalhostUrl("http://localhost")).toBe(true);
    expect(isLocalhostUrl("http://example.com/localhost")).toBe(false);
    expect(isLocalhostUrl("http://localhost@example.com")).toBe(false);
  });
});

describe("GATEHOUSE_AI_*", () => {
  it("is off unset, on with a base URL and a model, and refuses half a setting", () => {
    expect(readAiSettings({})).toBeUndefined();
    expect(
      readAiSettings({ GATEHOUSE_AI_BASE_URL: "http://localhost:11434/v1/", GATEHOUSE_AI_MODEL: "llama3.1" }),
    ).toEqual({ baseUrl: "http://localhost:11434/v1", apiKey: undefined, model: "llama3.1" });
    expect(
      readAiSettings({
        GATEHOUSE_AI_BASE_URL: "https://api.openai.com/v1",
        GATEHOUSE_AI_MODEL: "gpt-4o-mini",
        GATEHOUSE_AI_API_KEY: "sk-x",
      }),
    ).toMatchObject({ apiKey: "sk-x" });
    expect(() => readAiSettings({ GATEHOUSE_AI_MODEL: "gpt-4o-mini" })).toThrow(/GATEHOUSE_AI_BASE_URL/);
    expect(() => readAiSettings({ GATEHOUSE_AI_API_KEY: "sk-x" })).toThrow(/GATEHOUSE_AI_MODEL/);
    expect(() => readAiSettings({ GATEHOUSE_AI_BASE_URL: "ftp://x", GATEHOUSE_AI_MODEL: "m" })).toThrow(
      /http/,
    );
  });
});
