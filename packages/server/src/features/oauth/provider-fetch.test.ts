/**
 * A project's provider addresses in production: https only, and never this server's own network (the SSRF guard on
 * the connection), so an owner cannot make the server probe loopback or cloud metadata through OAuth settings.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BlockedAddressError } from "../../net/address-guard.ts";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
import { expectKnownError } from "../../testing/known-errors.ts";
import { guardedFetch, isLoopbackHost, ownerUrlProblem } from "./provider-fetch.ts";
import { authorizeQuery } from "./test-support.ts";

describe("which addresses a project may use", () => {
  it("takes https, and plain http only for this machine in development", () => {
    const development = { isDevelopment: true };
    const production = { isDevelopment: false };
    expect(ownerUrlProblem(production, "https://id.example.com")).toBeNull();
    expect(ownerUrlProblem(development, "http://localhost:9000")).toBeNull();
    expect(ownerUrlProblem(development, "http://127.0.0.1:9000/realm")).toBeNull();
    expect(ownerUrlProblem(development, "http://[::1]:9000")).toBeNull();
    expect(ownerUrlProblem(development, "http://id.example.com")).toContain("must use https");
    expect(ownerUrlProblem(production, "http://localhost:9000")).toContain("must use https");
    expect(ownerUrlProblem(production, "https://user:pw@id.example.com")).toContain("user name or password");
    expect(ownerUrlProblem(production, "not a url")).toContain("not a URL");
    expect(isLoopbackHost("app.localhost")).toBe(true);
    expect(isLoopbackHost("localhost.example.com")).toBe(false);
  });

  it("never connects to a loopback, private or link-local address in production", async () => {
    for (const url of [
      "https://127.0.0.1:1/.well-known/openid-configuration",
      "https://[::1]:1/token",
      "https://169.254.169.254/latest/meta-data",
      "https://10.0.0.1/token",
      "https://localhost:1/token",
    ]) {
      await expect(guardedFetch(url), url).rejects.toBeInstanceOf(BlockedAddressError);
    }
    await expect(guardedFetch("http://id.example.com/token")).rejects.toBeInstanceOf(BlockedAddressError);
  });
});

describe("in production", () => {
  let server: TestServer;
  let project: TestProject;
  beforeAll(async () => {
    server = await createTestServer({ isDevelopment: false });
    project = await server.createProject("Production issuers");
  });
  afterAll(() => server.close());

  it("refuses an issuer on plain http or inside this server's network, at authorize, with a 400", async () => {
    for (const [issuerUrl, reason] of [
      ["http://127.0.0.1:9", "must use https"],
      ["https://127.0.0.1:9", "loopback"],
      ["https://169.254.169.254", "link-local"],
    ] as const) {
      await project.configure({
        "auth.oauth.providers.sso": {
          type: "custom_oidc",
          isShared: false,
          clientId: "app",
          clientSecret: "secret",
          issuerUrl,
        },
      });
      const { query } = authorizeQuery(project);
      const response = await server.request(`/api/v1/auth/oauth/authorize/sso?${query}`);
      expectKnownError(response, 400, "OAUTH_PROVIDER_NOT_FOUND_OR_NOT_ENABLED");
      expect(response.body.error, issuerUrl).toContain(reason);
    }
  });
});
