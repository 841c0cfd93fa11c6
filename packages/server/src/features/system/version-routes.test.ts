import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestServer, type TestServer } from "../../testing/harness.ts";
import { checkClientVersion, PROTOCOL_VERSION } from "./version-routes.ts";

let server: TestServer;
beforeAll(async () => {
  server = await createTestServer();
});
afterAll(() => server.close());

describe("POST /check-version", () => {
  it("answers each outcome of the reference", async () => {
    expect(PROTOCOL_VERSION).toBe("2.8.86");
    expect(checkClientVersion("2.8.86")).toEqual({ upToDate: true });
    expect(checkClientVersion("2.8.90")).toEqual({ upToDate: true });
    expect(checkClientVersion("2.8.60")).toMatchObject({ upToDate: false, severe: false });
    expect(checkClientVersion("2.8.50")).toMatchObject({ upToDate: false, severe: true });
    expect(checkClientVersion("2.9.0")).toMatchObject({ upToDate: false, severe: true });
    expect(checkClientVersion("3.0.0")).toMatchObject({ upToDate: false, severe: true });
    expect(checkClientVersion("latest")).toMatchObject({ upToDate: false, severe: true });

    const current = await server.request("/api/v1/check-version", {
      method: "POST",
      body: { clientVersion: "2.8.86" },
    });
    expect(current.status).toBe(200);
    expect(current.body).toEqual({ upToDate: true });
    const old = await server.request("/api/v1/check-version", {
      method: "POST",
      body: { clientVersion: "2.8.70" },
    });
    expect(old.body).toMatchObject({
      upToDate: false,
      severe: false,
      error: expect.stringContaining("2.8.70"),
    });
    const bad = await server.request("/api/v1/check-version", { method: "POST", body: {} });
    expect(bad.body.code).toBe("SCHEMA_ERROR");
  });
});

describe("POST /check-feature-support", () => {
  it("answers 200 text naming the feature, with or without credentials", async () => {
    const named = await server.request("/api/v1/check-feature-support", {
      method: "POST",
      body: { feature_name: "Data vault", extra: [1, 2] },
    });
    expect(named.status).toBe(200);
    expect(named.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(named.text).toContain('"Data vault" is not supported yet');
    const project = await server.createProject("Feature asker");
    const unnamed = await server.request("/api/v1/check-feature-support", {
      method: "POST",
      headers: project.headers("client"),
      body: {},
    });
    expect(unnamed.text).toMatch(/^This feature is not supported yet/);
  });
});
