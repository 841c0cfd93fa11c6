/**
 * An anonymous user's metadata survives the upgrade to a full account (PROTOCOL.md §3.2): a server app may have
 * stored `server_metadata` for them while anonymous, and every sign-up path keeps it, with the client metadata.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
import { uniqueEmail } from "../../testing/known-errors.ts";
import { codeFromEmail, latestEmailTo } from "../../testing/outbox.ts";
import { signInWithDevProvider } from "../oauth/test-support.ts";

let server: TestServer;
let project: TestProject;

beforeAll(async () => {
  server = await createTestServer();
  project = await server.createProject("Upgrade metadata");
  await project.configure({
    "auth.otp.allowSignIn": true,
    "auth.oauth.providers.github": { isShared: true },
  });
});
afterAll(() => server.close());

const METADATA = {
  server_metadata: { plan: "trial", cart: ["a", "b"] },
  client_read_only_metadata: { tier: 2 },
  client_metadata: { theme: "dark" },
};

const asAnonymous = (accessToken: string) =>
  project.headers("client", { "x-stack-access-token": accessToken, "x-stack-allow-anonymous-user": "true" });

/** An anonymous user whose metadata a server app set, as a server SDK's `user.update()` does. */
async function anonymousWithMetadata() {
  const signUp = await server.request("/api/v1/auth/anonymous/sign-up", {
    method: "POST",
    headers: project.headers("client"),
    body: {},
  });
  expect(signUp.status, signUp.text).toBe(200);
  const userId = signUp.body.user_id as string;
  const patched = await server.request(`/api/v1/users/${userId}`, {
    method: "PATCH",
    headers: project.headers("server"),
    body: METADATA,
  });
  expect(patched.status, patched.text).toBe(200);
  return { userId, accessToken: signUp.body.access_token as string };
}

async function expectKept(userId: string, signedUpId: string) {
  expect(signedUpId).toBe(userId);
  const read = await server.request(`/api/v1/users/${userId}`, { headers: project.headers("server") });
  expect(read.status, read.text).toBe(200);
  expect(read.body).toMatchObject({ id: userId, is_anonymous: false, ...METADATA });
}

describe("anonymous upgrade keeps metadata", () => {
  it("by password sign-up", async () => {
    const anon = await anonymousWithMetadata();
    const response = await server.request("/api/v1/auth/password/sign-up", {
      method: "POST",
      headers: asAnonymous(anon.accessToken),
      body: { email: uniqueEmail("password"), password: "correct horse battery" },
    });
    expect(response.status, response.text).toBe(200);
    await expectKept(anon.userId, response.body.user_id);
  });

  it("by email code", async () => {
    const anon = await anonymousWithMetadata();
    const email = uniqueEmail("code");
    const sent = await server.request("/api/v1/auth/otp/send-sign-in-code", {
      method: "POST",
      headers: asAnonymous(anon.accessToken),
      body: { email, callback_url: "http://localhost:3000/handler/magic-link-callback" },
    });
    expect(sent.status, sent.text).toBe(200);
    const code = codeFromEmail((await latestEmailTo(server, project.id, email)).text);
    const response = await server.request("/api/v1/auth/otp/sign-in", {
      method: "POST",
      headers: asAnonymous(anon.accessToken),
      body: { code },
    });
    expect(response.status, response.text).toBe(200);
    await expectKept(anon.userId, response.body.user_id);
  });

  it("by OAuth sign-in", async () => {
    const anon = await anonymousWithMetadata();
    const { tokens } = await signInWithDevProvider(server, project, uniqueEmail("oauth"), {
      token: anon.accessToken,
    });
    const me = await server.request("/api/v1/users/me", {
      headers: project.headers("client", { "x-stack-access-token": tokens.access_token }),
    });
    expect(me.status, me.text).toBe(200);
    await expectKept(anon.userId, me.body.id);
  });
});
