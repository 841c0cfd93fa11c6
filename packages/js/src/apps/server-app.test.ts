import { isKnownError } from "@gatehouse/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appsFor, uniqueEmail } from "../testing/apps.ts";
import { type RunningGatehouse, startGatehouse } from "../testing/gatehouse-server.ts";

let gh: RunningGatehouse;
let apps: ReturnType<typeof appsFor>;

beforeAll(async () => {
  gh = await startGatehouse();
  apps = appsFor(gh, await gh.createProject("Server app tests"));
});
afterAll(() => gh?.close());

describe("users", () => {
  it("creates, reads, updates and deletes users", async () => {
    const server = apps.server();
    const email = uniqueEmail("created");
    const user = await server.createUser({
      primaryEmail: email,
      primaryEmailVerified: true,
      password: "a password 123",
      displayName: "Grace",
      serverMetadata: { plan: "pro" },
    });
    expect(user).toMatchObject({
      primaryEmail: email,
      displayName: "Grace",
      serverMetadata: { plan: "pro" },
    });
    expect(user.lastActiveAt).toBeInstanceOf(Date);

    await user.update({ clientReadOnlyMetadata: { level: 3 }, displayName: "Grace H." });
    const read = await server.getUser(user.id);
    expect(read).toMatchObject({ displayName: "Grace H.", clientReadOnlyMetadata: { level: 3 } });

    // The password set by the server works for the client.
    expect((await apps.client().signInWithCredential({ email, password: "a password 123" })).status).toBe(
      "ok",
    );

    await read!.delete();
    expect(await server.getUser(user.id)).toBeNull();
  });

  it("lists users page by page, and searches them", async () => {
    const server = apps.server();
    const marker = `list${Date.now()}`;
    const created = [];
    for (let i = 0; i < 5; i++) {
      created.push(
        await server.createUser({ primaryEmail: uniqueEmail(marker), displayName: `${marker} ${i}` }),
      );
    }
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await server.listUsers({ limit: 2, cursor, query: marker, orderBy: "signedUpAt" });
      expect(page.length).toBeLessThanOrEqual(2);
      seen.push(...page.map((u) => u.id));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(seen.sort()).toEqual(created.map((u) => u.id).sort());
    const descending = await server.listUsers({ query: marker, orderBy: "signedUpAt", desc: true });
    expect(descending[0]!.id).toBe(created[4]!.id);
    expect(descending.nextCursor).toBeNull();
  });

  it("lists restricted users only when asked", async () => {
    const server = apps.server();
    const marker = `restricted${Date.now()}`;
    const user = await server.createUser({ primaryEmail: uniqueEmail(marker), displayName: marker });
    await user.update({ restrictedByAdmin: true, restrictedByAdminReason: "spam" });
    expect((await server.listUsers({ query: marker })).map((u) => u.id)).toEqual([]);
    expect((await server.listUsers({ query: marker, includeRestricted: true })).map((u) => u.id)).toEqual([
      user.id,
    ]);
  });

  it("getUser of an unknown id is null", async () => {
    expect(await apps.server().getUser(crypto.randomUUID())).toBeNull();
  });
});

describe("sessions", () => {
  it("creates a session a client can use, and an impersonation session", async () => {
    const server = apps.server();
    const user = await server.createUser({ primaryEmail: uniqueEmail("session") });
    const tokens = await server.createSession({ userId: user.id });
    const client = apps.client({ tokenStore: tokens });
    expect((await client.getUser())?.id).toBe(user.id);

    const impersonation = await (await user.createSession({ isImpersonation: true })).getTokens();
    expect(impersonation.refreshToken).toBeTruthy();
    // The user does not see the admin's impersonation session; they see their own one.
    const sessions = await (await client.getUser({ or: "throw" })).getActiveSessions();
    expect(sessions.map((s) => s.isImpersonation)).toEqual([false]);
  });

  it("reads the signed-in user of an incoming request (x-stack-auth or cookies)", async () => {
    const server = apps.server({ tokenStore: null });
    const user = await server.createUser({
      primaryEmail: uniqueEmail("request"),
      serverMetadata: { x: 1 },
    });
    const tokens = await server.createSession({ userId: user.id });

    const withHeader = new Request("http://app.local/page", {
      headers: { "x-stack-auth": JSON.stringify(tokens) },
    });
    const fromHeader = await server.getUser({ tokenStore: withHeader });
    expect(fromHeader).toMatchObject({ id: user.id, serverMetadata: { x: 1 } });

    const cookie = `stack-refresh-${server.projectId}=${tokens.refreshToken}`;
    const fromCookie = await server.getUser({ tokenStore: { headers: { cookie } } });
    expect(fromCookie?.id).toBe(user.id);

    expect(await server.getUser({ tokenStore: new Request("http://app.local/") })).toBeNull();
    await expect(server.getUser()).rejects.toThrow(/tokenStore null/);
  });
});

describe("contact channels", () => {
  it("a server adds verified channels to any user", async () => {
    const server = apps.server();
    const user = await server.createUser({ primaryEmail: uniqueEmail("cc") });
    const extra = uniqueEmail("cc-extra");
    const channel = await user.createContactChannel({
      type: "email",
      value: extra,
      usedForAuth: true,
      isVerified: true,
    });
    expect(channel).toMatchObject({ value: extra, isVerified: true, usedForAuth: true });
    const channels = await user.listContactChannels();
    expect(channels.map((c) => c.value)).toContain(extra);
  });
});

describe("errors", () => {
  it("a wrong server key is a typed error", async () => {
    const server = apps.server({});
    const wrong = new (server.constructor as typeof import("./server-app.ts").GatehouseServerApp)({
      projectId: server.projectId,
      baseUrl: gh.baseUrl,
      secretServerKey: "ssk_wrong",
      tokenStore: null,
      noAutomaticPrefetch: true,
    });
    const error = await wrong.listUsers().catch((e) => e);
    expect(isKnownError(error, "INVALID_SECRET_SERVER_KEY")).toBe(true);
    expect(isKnownError(error, "PROJECT_AUTHENTICATION_ERROR")).toBe(true);
  });
});
