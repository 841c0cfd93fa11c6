import { describe, expect, it } from "vitest";
import { GatehouseClientApp, gatehouseInternals } from "./client-app.ts";
import { GatehouseServerApp } from "./server-app.ts";

const PROJECT_ID = "3c2d1e0f-aaaa-4bbb-8ccc-123456789abc";
const base = {
  projectId: PROJECT_ID,
  baseUrl: "https://auth.example.com",
  publishableClientKey: "pck_test",
  noAutomaticPrefetch: true,
} as const;

describe("handing a client app from server to browser (SPEC.md §5)", () => {
  it("serialises only client-safe options and rebuilds an equal app", () => {
    const server = new GatehouseServerApp({
      ...base,
      secretServerKey: "ssk_secret",
      tokenStore: "memory",
      redirectMethod: "none",
      urls: { signIn: "/login" },
    });
    const json = server[gatehouseInternals].toClientJson();
    expect(JSON.stringify(json)).not.toContain("ssk_secret");
    expect(json).toMatchObject({
      ...base,
      tokenStore: "memory",
      redirectMethod: "none",
      urls: { signIn: "/login" },
    });
    expect(json.uniqueIdentifier).toMatch(/^[0-9a-f]{32}$/);
    // The same server app always hands out the same identifier.
    expect(server[gatehouseInternals].toClientJson().uniqueIdentifier).toBe(json.uniqueIdentifier);

    const client = GatehouseClientApp.fromClientJson(json);
    expect(client.projectId).toBe(PROJECT_ID);
    expect(client.urls.signIn).toBe("/login");
    expect(GatehouseClientApp.fromClientJson(json)).toBe(client);
  });

  it("needs a publishable key and a string redirect method", () => {
    const noKey = new GatehouseClientApp({ ...base, publishableClientKey: undefined, tokenStore: "memory" });
    expect(() => noKey[gatehouseInternals].toClientJson()).toThrow(/publishableClientKey/);
    const customRedirect = new GatehouseClientApp({
      ...base,
      tokenStore: "memory",
      redirectMethod: { navigate: () => {} },
    });
    expect(() => customRedirect[gatehouseInternals].toClientJson()).toThrow(/redirectMethod/);
  });

  it("two apps under one unique identifier must have identical configuration", () => {
    const uniqueIdentifier = `app-${Math.random()}`;
    new GatehouseClientApp({ ...base, tokenStore: "memory", redirectMethod: "none", uniqueIdentifier });
    // Same configuration, keys in another order: fine.
    new GatehouseClientApp({ redirectMethod: "none", tokenStore: "memory", ...base, uniqueIdentifier });
    expect(
      () =>
        new GatehouseClientApp({ ...base, tokenStore: "memory", redirectMethod: "window", uniqueIdentifier }),
    ).toThrow(/identical configuration/);
    const json = {
      ...base,
      publishableClientKey: "pck_other",
      tokenStore: "memory" as const,
      redirectMethod: "none" as const,
      urls: {},
      uniqueIdentifier,
    };
    expect(() => GatehouseClientApp.fromClientJson(json)).toThrow(/identical configuration/);
  });
});
