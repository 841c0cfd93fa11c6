/**
 * Instances behind one load balancer must share GATEHOUSE_BASE_URL and GATEHOUSE_SECRET (README, Deploy). When they
 * do not, each refuses the others' tokens; the refusal keeps the protocol's code and says which setting differs.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SignAccessTokenInput } from "../crypto/index.ts";
import { createTestServer, type TestServer } from "../testing/harness.ts";

const BASE_URL = "http://localhost:8102";
const SECRET = "the fleet's shared secret, long enough for the check";

let issuing: TestServer;
let otherBaseUrl: TestServer;
let otherSecret: TestServer;

beforeAll(async () => {
  [issuing, otherBaseUrl, otherSecret] = await Promise.all([
    createTestServer({ baseUrl: BASE_URL, secret: SECRET }),
    createTestServer({ baseUrl: "http://localhost:9999", secret: SECRET }),
    createTestServer({ baseUrl: BASE_URL, secret: "another secret, as a misconfigured instance has it" }),
  ]);
});
afterAll(async () => {
  await Promise.all([issuing, otherBaseUrl, otherSecret].map((server) => server?.close()));
});

function tokenFrom(server: TestServer): Promise<string> {
  const input: SignAccessTokenInput = {
    projectId: "internal",
    branchId: "main",
    userId: "6f1c8f5e-4a8e-4a53-9d0c-2a6f3c1e9b10",
    refreshTokenId: "0b8a4c55-1d5e-4e0a-a3a9-7c2f5e8d9a11",
    name: null,
    email: "someone@example.com",
    emailVerified: true,
    selectedTeamId: null,
    signedUpAtSeconds: Math.floor(Date.now() / 1000),
    isAnonymous: false,
    isRestricted: false,
    restrictedReason: null,
    requiresTotpMfa: false,
    expiresInSeconds: 600,
  };
  return server.deps.keyring.signAccessToken(input);
}

async function asUser(server: TestServer, token: string) {
  return server.request("/api/v1/users/me", {
    headers: server.internal.headers("client", { "x-stack-access-token": token }),
  });
}

describe("a token from an instance configured differently", () => {
  it("is refused with the protocol's code, naming GATEHOUSE_BASE_URL when the issuers differ", async () => {
    const response = await asUser(otherBaseUrl, await tokenFrom(issuing));
    expect(response.status).toBe(401);
    expect(response.headers.get("x-stack-known-error")).toBe("UNPARSABLE_ACCESS_TOKEN");
    expect(response.body.code).toBe("UNPARSABLE_ACCESS_TOKEN");
    expect(response.body.error).toContain("GATEHOUSE_BASE_URL");
    expect(response.body.error).toContain(`"${BASE_URL}/api/v1/projects/internal"`);
    expect(response.body.error).toContain('"http://localhost:9999/api/v1/projects/internal"');
    expect(response.body.error).not.toContain("GATEHOUSE_SECRET");
  });

  it("is refused naming GATEHOUSE_SECRET when the issuer matches but the signature does not", async () => {
    const response = await asUser(otherSecret, await tokenFrom(issuing));
    expect(response.status).toBe(401);
    expect(response.body.code).toBe("UNPARSABLE_ACCESS_TOKEN");
    expect(response.body.error).toContain("GATEHOUSE_SECRET");
    expect(response.body.error).not.toContain("GATEHOUSE_BASE_URL");
    // Only the setting's name: the message carries no key material of either instance.
    expect(response.body.error).not.toContain(SECRET);
  });

  it("says the same for an admin access token", async () => {
    const response = await otherSecret.request("/api/v1/internal/projects/current", {
      headers: {
        "x-stack-project-id": "internal",
        "x-stack-access-type": "admin",
        "x-stack-admin-access-token": await tokenFrom(issuing),
      },
    });
    expect(response.status).toBe(401);
    expect(response.body.code).toBe("UNPARSABLE_ADMIN_ACCESS_TOKEN");
    expect(response.body.error).toContain("GATEHOUSE_SECRET");
  });

  it("is accepted past the signature by an instance with the same settings", async () => {
    // The user exists on none of these databases: an instance that verified the token goes on to look it up.
    const response = await asUser(issuing, await tokenFrom(issuing));
    expect(response.body.code).not.toBe("UNPARSABLE_ACCESS_TOKEN");
  });

  it("keeps the plain message for a token that is not one of ours at all", async () => {
    const response = await asUser(otherSecret, "not.a.token");
    expect(response.body.code).toBe("UNPARSABLE_ACCESS_TOKEN");
    expect(response.body.error).toBe("The access token could not be parsed, or its signature is not valid.");
  });
});
