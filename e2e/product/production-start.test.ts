import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { newSeedKeys, seedKeysEnv } from "./api.ts";
import { createOwnDatabase, type OwnDatabase } from "./postgres-database.ts";
import { DEPLOY_START, startProduct } from "./product-process.ts";

/**
 * Production defaults of the built server (README, Deploy): a production start prints no secret (logs are shipped
 * and kept where secrets must not be), and a development server listens on loopback only while a production one
 * listens on every interface. On the PostgreSQL pass the production starts use a database of their own, on the
 * PGlite pass the embedded one; the listening checks read the kernel's socket table (Linux, as CI runs).
 */
const postgresUrl = process.env.DATABASE_URL;
const mode = postgresUrl ? "PostgreSQL" : "the embedded database";
const databases: OwnDatabase[] = [];

afterAll(async () => {
  await Promise.all(databases.map((database) => database.drop()));
});

async function productionEnv(): Promise<Record<string, string>> {
  const env: Record<string, string> = {
    NODE_ENV: "production",
    GATEHOUSE_SECRET: randomBytes(32).toString("base64url"),
    // This test does not drain behind a load balancer: no reason to keep listening after SIGTERM.
    GATEHOUSE_SHUTDOWN_DELAY: "0",
  };
  if (postgresUrl) {
    const database = await createOwnDatabase(postgresUrl, "gatehouse_production_start");
    databases.push(database);
    Object.assign(env, database.serverEnv());
  }
  return env;
}

/** Addresses listening on `port`, from /proc/net/tcp and tcp6: e.g. `127.0.0.1`, `::1`, `0.0.0.0`, `::`. */
function listeningAddresses(port: number): string[] {
  const found: string[] = [];
  for (const file of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    if (!existsSync(file)) continue;
    for (const line of readFileSync(file, "utf8").split("\n").slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      if (!local || state !== "0A") continue; // 0A: LISTEN
      const [hexAddress, hexPort] = local.split(":") as [string, string];
      if (Number.parseInt(hexPort, 16) !== port) continue;
      found.push(hexAddress.length === 8 ? ipv4(hexAddress) : ipv6(hexAddress));
    }
  }
  return found;
}

/** The kernel writes each 32-bit word in host order (little-endian on the machines CI runs). */
function words(hex: string): number[][] {
  const result: number[][] = [];
  for (let i = 0; i < hex.length; i += 8) {
    const word = hex.slice(i, i + 8);
    result.push([6, 4, 2, 0].map((at) => Number.parseInt(word.slice(at, at + 2), 16)));
  }
  return result;
}

function ipv4(hex: string): string {
  return words(hex)[0]!.join(".");
}

function ipv6(hex: string): string {
  const bytes = words(hex).flat();
  const groups = Array.from({ length: 8 }, (_, i) => ((bytes[2 * i]! << 8) | bytes[2 * i + 1]!).toString(16));
  const text = groups.join(":");
  if (text === "0:0:0:0:0:0:0:0") return "::";
  if (text === "0:0:0:0:0:0:0:1") return "::1";
  return text;
}

describe(`a production start (${mode})`, () => {
  it("prints none of the internal project's keys, the secret or the seeded admin's password", {
    timeout: 180_000,
  }, async () => {
    const keys = newSeedKeys();
    const env = await productionEnv();
    const password = `admin password ${randomBytes(6).toString("hex")}`;
    const product = await startProduct({
      command: DEPLOY_START,
      env: (baseUrl) => ({
        ...env,
        GATEHOUSE_BASE_URL: baseUrl,
        ...seedKeysEnv(keys),
        GATEHOUSE_SEED_ADMIN_EMAIL: "admin@production-start.test",
        GATEHOUSE_SEED_ADMIN_PASSWORD: password,
      }),
    });
    const code = await product.stop();
    const log = product.log();
    // Production logs JSON lines by default; whatever their shape, no secret is in them.
    expect(log).toContain("Gatehouse is running at");
    for (const secret of [...Object.values(keys), env.GATEHOUSE_SECRET!, password]) {
      expect(log).not.toContain(secret);
    }
    expect(code, log).toBe(0);
  });

  it("prints no generated key either in its readable banner, only where they are kept", {
    timeout: 180_000,
  }, async () => {
    const env = await productionEnv();
    const product = await startProduct({
      command: DEPLOY_START,
      // The banner in full, as a terminal shows it: the lines that list the keys in development.
      env: (baseUrl) => ({ ...env, GATEHOUSE_BASE_URL: baseUrl, GATEHOUSE_LOG_FORMAT: "pretty" }),
    });
    try {
      const generated = product.internalKeys();
      const log = product.log();
      expect(log).toContain("not printed in production");
      expect(log).toContain("internal-keys.json");
      for (const key of Object.values(generated)) {
        expect(key.length).toBeGreaterThan(20);
        expect(log).not.toContain(key);
      }
    } finally {
      expect(await product.stop()).toBe(0);
    }
  });

  it("listens on every interface", { timeout: 180_000 }, async () => {
    const env = await productionEnv();
    const product = await startProduct({
      command: DEPLOY_START,
      env: (baseUrl) => ({ ...env, GATEHOUSE_BASE_URL: baseUrl }),
    });
    try {
      const port = Number(new URL(product.baseUrl).port);
      const addresses = listeningAddresses(port);
      expect(addresses.length, product.log()).toBeGreaterThan(0);
      for (const address of addresses) expect(["0.0.0.0", "::"]).toContain(address);
    } finally {
      expect(await product.stop()).toBe(0);
    }
  });
});

describe("a development start", () => {
  it("listens on loopback only, and GATEHOUSE_HOST opens it up", { timeout: 180_000 }, async () => {
    const local = await startProduct({ command: DEPLOY_START });
    try {
      const addresses = listeningAddresses(Number(new URL(local.baseUrl).port));
      expect(addresses, local.log()).toContain("127.0.0.1");
      for (const address of addresses) expect(["127.0.0.1", "::1"]).toContain(address);
      expect(local.log()).toContain("127.0.0.1:");
    } finally {
      expect(await local.stop()).toBe(0);
    }

    const open = await startProduct({ command: DEPLOY_START, env: () => ({ GATEHOUSE_HOST: "0.0.0.0" }) });
    try {
      expect(listeningAddresses(Number(new URL(open.baseUrl).port))).toEqual(["0.0.0.0"]);
    } finally {
      expect(await open.stop()).toBe(0);
    }
  });
});
