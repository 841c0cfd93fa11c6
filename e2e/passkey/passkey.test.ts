import { and, eq } from "drizzle-orm";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { passkeyCredentials } from "../../packages/server/src/features/auth-passkey/schema.ts";
import { type BrowserTest, startBrowserTest } from "../../packages/server/src/testing/browser.ts";
import type { ListeningServer } from "../../packages/server/src/testing/listening-server.ts";
import { type SdkPage, serveSdkPage } from "../../packages/server/src/testing/sdk-page.ts";

const PASSWORD = "passkey e2e password";

/** What the page runs. `config` holds the API URL, project id and publishable key. */
const ENTRY = `
import { GatehouseClientApp } from "@gatehouse/js";
import { startAuthentication, startRegistration } from "@simplewebauthn/browser";

const config = JSON.parse(document.getElementById("config").textContent);
const headers = (accessToken) => ({
  "content-type": "application/json",
  "x-stack-project-id": config.projectId,
  "x-stack-access-type": "client",
  "x-stack-publishable-client-key": config.publishableClientKey,
  ...(accessToken ? { "x-stack-access-token": accessToken } : {}),
});
async function call(path, body, accessToken) {
  const response = await fetch(config.apiUrl + "/api/v1" + path, {
    method: "POST",
    headers: headers(accessToken),
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}
const sdkApp = () =>
  new GatehouseClientApp({
    projectId: config.projectId,
    baseUrl: config.apiUrl,
    publishableClientKey: config.publishableClientKey,
    tokenStore: "memory",
    redirectMethod: "none",
    noAutomaticPrefetch: true,
  });

window.passkeyPage = {
  // By hand: the server's options, with the RP id placeholder replaced by this page's hostname as the SDK does.
  async register(accessToken) {
    const initiated = await call("/auth/passkey/initiate-passkey-registration", {}, accessToken);
    const optionsJSON = { ...initiated.body.options_json, rp: { ...initiated.body.options_json.rp, id: location.hostname } };
    const credential = await startRegistration({ optionsJSON });
    const registered = await call("/auth/passkey/register", { credential, code: initiated.body.code }, accessToken);
    return { initiated, credential, registered };
  },
  async signIn() {
    const initiated = await call("/auth/passkey/initiate-passkey-authentication", {});
    const optionsJSON = { ...initiated.body.options_json, rpId: location.hostname };
    const assertion = await startAuthentication({ optionsJSON });
    const signedIn = await call("/auth/passkey/sign-in", { authentication_response: assertion, code: initiated.body.code });
    return { initiated, assertion, signedIn };
  },
  // Through the SDK: sign in with a password, register a passkey, then sign in with it from a fresh app.
  async sdkRegister(email, password) {
    const app = sdkApp();
    const signIn = await app.signInWithCredential({ email, password, noRedirect: true });
    if (signIn.status !== "ok") return { step: "password", error: signIn.error.code };
    const registered = await app.registerPasskey();
    return registered.status === "ok"
      ? { status: "ok" }
      : { status: "error", code: registered.error.code, message: registered.error.message };
  },
  async sdkSignIn() {
    const app = sdkApp();
    const result = await app.signInWithPasskey();
    if (result.status !== "ok") return { status: "error", code: result.error.code, message: result.error.message };
    const user = await app.getUser();
    return { status: "ok", userId: user?.id ?? null, passkeyAuthEnabled: user?.passkeyAuthEnabled ?? null };
  },
};
`;

let session: BrowserTest | undefined;
let gatehouse: ListeningServer | undefined;
let pageServer: SdkPage | undefined;
let project: {
  id: string;
  publishableClientKey: string;
  secretServerKey: string;
  superSecretAdminKey: string;
};

async function api(
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: unknown },
) {
  const response = await fetch(`${gatehouse!.baseUrl}/api/v1${path}`, {
    method: init.method ?? "GET",
    headers: { "content-type": "application/json", ...init.headers },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  return { status: response.status, body: (await response.json()) as any };
}

const headersFor = (
  target: typeof project,
  access: "client" | "server" | "admin",
  extra: Record<string, string> = {},
) => ({
  "x-stack-project-id": target.id,
  "x-stack-access-type": access,
  ...(access === "client" ? { "x-stack-publishable-client-key": target.publishableClientKey } : {}),
  ...(access === "server" ? { "x-stack-secret-server-key": target.secretServerKey } : {}),
  ...(access === "admin" ? { "x-stack-super-secret-admin-key": target.superSecretAdminKey } : {}),
  ...extra,
});

async function newProject(name: string, config: Record<string, unknown>) {
  const created = await gatehouse!.createProject(name);
  await created.configure(config);
  return { id: created.id, ...created.keys };
}

/** A user made through the server API, optionally with a password. */
async function newUser(target: typeof project, email: string, password?: string) {
  const created = await api("/users", {
    method: "POST",
    headers: headersFor(target, "server"),
    body: { primary_email: email, primary_email_verified: true, ...(password ? { password } : {}) },
  });
  expect(created.status).toBe(201);
  return created.body.id as string;
}

/** A fresh browser context with the page open and its own virtual authenticator. */
async function openPage(target: typeof project): Promise<{
  context: BrowserContext;
  page: Page;
  credentials: () => Promise<Array<{ credentialId: string; signCount: number; userHandle?: string }>>;
}> {
  const { context, page } = await session!.newPage();
  const query = new URLSearchParams({
    apiUrl: gatehouse!.baseUrl,
    projectId: target.id,
    publishableClientKey: target.publishableClientKey,
  });
  await page.goto(`${pageServer!.url}/?${query}`);
  await page.waitForFunction(() => "passkeyPage" in window);
  const cdp = await context.newCDPSession(page);
  await cdp.send("WebAuthn.enable", { enableUI: false });
  const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport: "internal",
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  const credentials = async () =>
    (await cdp.send("WebAuthn.getCredentials", { authenticatorId })).credentials;
  return { context, page, credentials };
}

/** CDP reports binary fields in plain base64; the server stores base64url. */
const toBase64Url = (base64: string) => Buffer.from(base64, "base64").toString("base64url");

async function storedCredential(projectId: string, userId: string) {
  return gatehouse!.gatehouse.deps.db
    .select()
    .from(passkeyCredentials)
    .where(and(eq(passkeyCredentials.projectId, projectId), eq(passkeyCredentials.userId, userId)));
}

beforeAll(async () => {
  session = await startBrowserTest();
  gatehouse = session.server;
  project = await newProject("Passkey e2e", {
    "auth.passkey.allowSignIn": true,
    "auth.password.allowSignIn": true,
  });
  pageServer = await serveSdkPage({
    entry: ENTRY,
    // Each page's settings come in its query.
    config: (url) => Object.fromEntries(url.searchParams),
    // localhost, not 127.0.0.1: an IP address cannot be a WebAuthn RP id.
    host: "localhost",
  });
}, 120_000);

afterAll(async () => {
  await pageServer?.close();
  await session?.close();
});

describe("passkeys in Chromium", () => {
  it("registers a passkey for a signed-in user and signs in with it", { timeout: 60_000 }, async () => {
    const userId = await newUser(project, "passkey-e2e@example.com");
    const session = await api("/auth/sessions", {
      method: "POST",
      headers: headersFor(project, "server"),
      body: { user_id: userId },
    });
    expect(session.status).toBe(200);
    const { context, page, credentials } = await openPage(project);
    try {
      const registration = await page.evaluate(
        (token) => (window as any).passkeyPage.register(token),
        session.body.access_token as string,
      );
      expect(registration.initiated.status).toBe(200);
      expect(registration.initiated.body.options_json.rp.id).toBe("THIS_VALUE_WILL_BE_REPLACED.example.com");
      expect(registration.registered).toEqual({
        status: 200,
        body: { user_handle: Buffer.from(userId).toString("base64url") },
      });

      // The server keeps exactly the credential the authenticator made, for this user.
      const [inAuthenticator] = await credentials();
      const [stored] = await storedCredential(project.id, userId);
      expect(stored!.credentialId).toBe(registration.credential.id);
      expect(toBase64Url(inAuthenticator!.credentialId)).toBe(stored!.credentialId);
      expect(toBase64Url(inAuthenticator!.userHandle!)).toBe(Buffer.from(userId).toString("base64url"));
      expect(stored!.transports).toContain("internal");
      const me = await api("/users/me", {
        headers: headersFor(project, "client", { "x-stack-access-token": session.body.access_token }),
      });
      expect(me.body.passkey_auth_enabled).toBe(true);

      const signIn = await page.evaluate(() => (window as any).passkeyPage.signIn());
      expect(signIn.assertion.id).toBe(stored!.credentialId);
      expect(signIn.signedIn.status).toBe(200);
      expect(signIn.signedIn.body).toEqual({
        access_token: expect.any(String),
        refresh_token: expect.any(String),
        is_new_user: false,
        user_id: userId,
      });
      const signedInMe = await api("/users/me", {
        headers: headersFor(project, "client", { "x-stack-access-token": signIn.signedIn.body.access_token }),
      });
      expect(signedInMe.body.id).toBe(userId);

      // The counter follows the authenticator's, and the use is recorded.
      const [afterSignIn] = await storedCredential(project.id, userId);
      const [authenticatorAfter] = await credentials();
      expect(authenticatorAfter!.signCount).toBeGreaterThan(stored!.counter);
      expect(afterSignIn!.counter).toBe(authenticatorAfter!.signCount);
      expect(afterSignIn!.lastUsedAt).toBeInstanceOf(Date);

      // A challenge answers once.
      const replay = await api("/auth/passkey/sign-in", {
        method: "POST",
        headers: headersFor(project, "client"),
        body: { authentication_response: signIn.assertion, code: signIn.initiated.body.code },
      });
      expect(replay.status).toBe(409);
      expect(replay.body.code).toBe("VERIFICATION_CODE_ALREADY_USED");
    } finally {
      await context.close();
    }
  });

  it("works through the SDK's registerPasskey and signInWithPasskey", { timeout: 60_000 }, async () => {
    const email = "sdk-passkey-e2e@example.com";
    const userId = await newUser(project, email, PASSWORD);
    const { context, page, credentials } = await openPage(project);
    try {
      const registered = await page.evaluate(([e, p]) => (window as any).passkeyPage.sdkRegister(e, p), [
        email,
        PASSWORD,
      ] as const);
      expect(registered).toEqual({ status: "ok" });
      const [stored] = await storedCredential(project.id, userId);
      expect(toBase64Url((await credentials())[0]!.credentialId)).toBe(stored!.credentialId);

      const signedIn = await page.evaluate(() => (window as any).passkeyPage.sdkSignIn());
      expect(signedIn).toEqual({ status: "ok", userId, passkeyAuthEnabled: true });
    } finally {
      await context.close();
    }
  });

  it("refuses a passkey made on a page the project does not trust", { timeout: 60_000 }, async () => {
    const strict = await newProject("Passkey e2e, no localhost", {
      "auth.passkey.allowSignIn": true,
      "auth.password.allowSignIn": true,
      "domains.allowLocalhost": false,
    });
    const email = "strict-passkey-e2e@example.com";
    const userId = await newUser(strict, email, PASSWORD);
    const { context, page } = await openPage(strict);
    try {
      const registered = await page.evaluate(([e, p]) => (window as any).passkeyPage.sdkRegister(e, p), [
        email,
        PASSWORD,
      ] as const);
      expect(registered).toMatchObject({
        status: "error",
        code: "PASSKEY_REGISTRATION_FAILED",
        message: expect.stringContaining("not a trusted domain"),
      });
      expect(await storedCredential(strict.id, userId)).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
