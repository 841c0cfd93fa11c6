/**
 * The official SDK, unchanged, against our server: 2.8.102 (x-stack-* headers) and the latest 2.8.x
 * (x-hexclave-* headers). If these pass, an app can switch its baseUrl to Gatehouse.
 */
import * as sdk102 from "@stackframe/js";
import * as sdkLatest from "stackframe-js-latest";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { createKeySet } from "../features/project-keys/service.ts";
import { createProject } from "../features/projects/service.ts";
import { startListeningServer } from "../testing/listening-server.ts";

type Sdk = typeof sdk102;

let server: Awaited<ReturnType<typeof startListeningServer>>;
let projectId: string;
let keys: { publishableClientKey: string; secretServerKey: string; superSecretAdminKey: string };

beforeAll(async () => {
  server = await startListeningServer();
  const { db } = server.gatehouse.deps;
  const project = await createProject(db, { display_name: "SDK compat", owner_team_id: null });
  projectId = project.id;
  const created = await createKeySet(db, project.id, {
    description: "sdk",
    expiresAt: null,
    hasPublishableClientKey: true,
    hasSecretServerKey: true,
    hasSuperSecretAdminKey: true,
  });
  keys = created.keys as typeof keys;
});
afterAll(() => server.close());
afterEach(() => {
  vi.useRealTimers();
});

describe.each([
  ["@stackframe/js 2.8.102", sdk102 as Sdk],
  ["@stackframe/js latest 2.8.x", sdkLatest as unknown as Sdk],
])("%s", (_name, sdk) => {
  const clientApp = () =>
    new sdk.StackClientApp({
      projectId,
      baseUrl: server.baseUrl,
      publishableClientKey: keys.publishableClientKey,
      tokenStore: "memory",
      redirectMethod: "none",
    });
  const serverApp = () =>
    new sdk.StackServerApp({
      projectId,
      baseUrl: server.baseUrl,
      publishableClientKey: keys.publishableClientKey,
      secretServerKey: keys.secretServerKey,
      tokenStore: "memory",
      redirectMethod: "none",
    });
  const uniqueEmail = () => `sdk-${Math.random().toString(36).slice(2, 10)}@example.com`;

  it("signs up, reads and updates the current user, signs out and in again", async () => {
    const app = clientApp();
    const email = uniqueEmail();
    const signUp = await app.signUpWithCredential({
      email,
      password: "correct horse battery",
      noVerificationCallback: true,
    });
    expect(signUp.status).toBe("ok");

    const user = await app.getUser({ or: "throw" });
    expect(user.primaryEmail).toBe(email);
    expect(user.hasPassword).toBe(true);

    await user.update({ displayName: "Ada Lovelace" });
    const updated = await app.getUser({ or: "throw" });
    expect(updated.displayName).toBe("Ada Lovelace");

    await updated.signOut();
    expect(await app.getUser()).toBeNull();

    const wrong = await app.signInWithCredential({ email, password: "wrong password!" });
    expect(wrong.status).toBe("error");
    const right = await app.signInWithCredential({ email, password: "correct horse battery" });
    expect(right.status).toBe("ok");
    expect((await app.getUser({ or: "throw" })).displayName).toBe("Ada Lovelace");
  });

  it("refreshes an expired access token", async () => {
    const app = clientApp();
    await app.signUpWithCredential({
      email: uniqueEmail(),
      password: "correct horse battery",
      noVerificationCallback: true,
    });
    const before = await app.getUser({ or: "throw" });
    // Jump past the access token's lifetime; server and SDK share this process's clock.
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 15 * 60 * 1000 });
    const after = await app.getUser({ or: "throw" });
    expect(after.id).toBe(before.id);
  });

  it("lists and creates users from a server app", async () => {
    const app = serverApp();
    const email = uniqueEmail();
    const created = await app.createUser({
      primaryEmail: email,
      password: "server made this",
      primaryEmailAuthEnabled: true,
    });
    expect(created.primaryEmail).toBe(email);
    const listed = await app.listUsers({ limit: 200 });
    expect(listed.map((u) => u.id)).toContain(created.id);
    const fetched = await app.getUser(created.id);
    expect(fetched?.primaryEmail).toBe(email);

    const client = clientApp();
    const signIn = await client.signInWithCredential({ email, password: "server made this" });
    expect(signIn.status).toBe("ok");
  });
});
