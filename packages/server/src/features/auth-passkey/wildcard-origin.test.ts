/**
 * Passkeys on an origin that a wildcard trusted domain covers (issue 35 item 5): a project trusting
 * `https://*.example.com` registers and signs in with passkeys on `https://app.example.com`, its RP id that
 * page's hostname, as the SDK sends it; other sites stay refused.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
import { expectKnownError } from "../../testing/known-errors.ts";
import { type PasskeyApi, passkeyApi, SoftwareAuthenticator } from "./test-support.ts";

let server: TestServer;
let project: TestProject;
let api: PasskeyApi;

beforeAll(async () => {
  server = await createTestServer();
  project = await server.createProject("Wildcard passkeys");
  await project.configure({
    "auth.passkey.allowSignIn": true,
    "domains.allowLocalhost": false,
    "domains.trustedDomains.apps": { baseUrl: "https://*.example.com", handlerPath: "/handler" },
  });
  api = passkeyApi(server, project);
});
afterAll(() => server.close());

async function register(origin: string) {
  const { accessToken } = await api.newUser();
  const authenticator = new SoftwareAuthenticator();
  const started = await api.startRegistration(accessToken);
  const credential = authenticator.create(started.options_json, { origin });
  const reply = await api.post("/register", { credential, code: started.code }, { token: accessToken });
  return { reply, authenticator };
}

describe("passkeys on a wildcard trusted domain", () => {
  it("registers on a subdomain the wildcard covers, then signs in there", async () => {
    const origin = "https://app.example.com";
    const { reply, authenticator } = await register(origin);
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toEqual({ user_handle: expect.any(String) });
    const signedIn = await api.signIn(authenticator, { origin });
    expect(signedIn.status, signedIn.text).toBe(200);
    expect(signedIn.body).toMatchObject({
      access_token: expect.any(String),
      refresh_token: expect.any(String),
    });
  });

  it("refuses an origin the wildcard does not cover", async () => {
    // `*` is one label (a deeper name needs its own entry), and the scheme is part of the trusted domain.
    for (const origin of ["https://example.com", "https://a.b.example.com", "http://app.example.com"]) {
      const { reply } = await register(origin);
      expectKnownError(reply, 400, "PASSKEY_REGISTRATION_FAILED");
    }
  });
});
