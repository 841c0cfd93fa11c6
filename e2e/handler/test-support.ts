import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { type GatehouseAdminApp, GatehouseClientApp, GatehouseServerApp } from "@gatehouse/js";
import type { Browser, Page } from "playwright-core";
import { build } from "vite";
import { totpCode } from "../../packages/js/src/testing/apps.ts";
import {
  type BrowserPage,
  saveScreenshot,
  startBrowserTest,
} from "../../packages/server/src/testing/browser.ts";
import { TEST_INTERNAL_KEYS } from "../../packages/server/src/testing/harness.ts";
import { codeFromEmail, emailsTo } from "../../packages/server/src/testing/outbox.ts";

/**
 * What the browser tests of the handler pages run against: a real Gatehouse on a random port, a project created
 * through its API the way an owner would, the demo app built with Vite and served on another port, and Debian's
 * Chromium driven by playwright-core (the shared browser-test bootstrap, testing/browser.ts).
 */
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
/** The internal project's team, which owns the projects its members create (server seed). */
const INTERNAL_TEAM_ID = "a23e1b7f-ab18-41fc-9ee6-7a9ca9fa543c";

export type ProjectSettings = {
  magicLinkEnabled?: boolean;
  passkeyEnabled?: boolean;
  clientTeamCreationEnabled?: boolean;
  clientUserDeletionEnabled?: boolean;
  allowUserApiKeys?: boolean;
  oauthProviders?: { id: string; type: "shared" | "standard" }[];
};

export type Demo = {
  apiUrl: string;
  /** The demo app's origin, e.g. http://localhost:41234 */
  url: string;
  project: { id: string; publishableClientKey: string; secretServerKey: string };
  browser: Browser;
  /** A server app of the project, to check what the server holds. */
  server: GatehouseServerApp;
  /**
   * A fresh browser profile (cookies, storage) looking at the demo. `errors` collects what the page logged as an
   * error (React warnings included: the demo is built in development mode under Vitest) and uncaught exceptions.
   */
  newPage(options?: { viewport?: { width: number; height: number } }): Promise<BrowserPage>;
  /** A user made through the server API, e-mail verified, with a password. */
  createUser(email: string, password: string, options?: { displayName?: string }): Promise<string>;
  /** The newest e-mail the project sent to an address, from the server's outbox table. */
  latestEmail(address: string, subject?: RegExp): Promise<{ subject: string; text: string; code: string }>;
  close(): Promise<void>;
};

async function createProjectThroughApi(apiUrl: string, settings: ProjectSettings) {
  const internal = {
    projectId: "internal",
    baseUrl: apiUrl,
    publishableClientKey: TEST_INTERNAL_KEYS.publishableClientKey,
    tokenStore: "memory" as const,
    redirectMethod: "none" as const,
    noAutomaticPrefetch: true,
  };
  const internalServer = new GatehouseServerApp({
    ...internal,
    secretServerKey: TEST_INTERNAL_KEYS.secretServerKey,
  });
  const email = `owner-${crypto.randomUUID()}@example.com`;
  const password = "owner password 1";
  const owner = await internalServer.createUser({
    primaryEmail: email,
    password,
    primaryEmailVerified: true,
  });
  const team = await internalServer.getTeam(INTERNAL_TEAM_ID);
  if (!team?.addUser) throw new Error("The internal team is missing");
  await team.addUser(owner.id);

  const ownerClient = new GatehouseClientApp(internal);
  const signedIn = await ownerClient.signInWithCredential({ email, password, noRedirect: true });
  if (signedIn.status === "error") throw signedIn.error;
  const ownerUser = await ownerClient.getUser({ or: "throw" });
  const project = await ownerUser.createProject!({
    displayName: "Acme Notes",
    teamId: INTERNAL_TEAM_ID,
    config: {
      signUpEnabled: true,
      credentialEnabled: true,
      magicLinkEnabled: settings.magicLinkEnabled ?? true,
      passkeyEnabled: settings.passkeyEnabled ?? false,
      clientTeamCreationEnabled: settings.clientTeamCreationEnabled ?? true,
      clientUserDeletionEnabled: settings.clientUserDeletionEnabled ?? true,
      allowUserApiKeys: settings.allowUserApiKeys ?? true,
      allowLocalhost: true,
      ...(settings.oauthProviders ? { oauthProviders: settings.oauthProviders } : {}),
    },
  });
  const admin = project.app as GatehouseAdminApp;
  const keys = await admin.createInternalApiKey({
    description: "demo app",
    expiresAt: new Date(Date.now() + 24 * 3600 * 1000),
    hasPublishableClientKey: true,
    hasSecretServerKey: true,
    hasSuperSecretAdminKey: false,
  });
  return {
    id: project.id,
    publishableClientKey: keys.publishableClientKey!,
    secretServerKey: keys.secretServerKey!,
  };
}

/** The demo app built into a temporary folder (built once per test file: the config is injected at serve time). */
export async function buildDemo(): Promise<string> {
  const outDir = mkdtempSync(path.join(tmpdir(), "gatehouse-demo-"));
  await build({
    configFile: path.join(ROOT, "apps/demo/vite.config.ts"),
    logLevel: "error",
    build: { outDir, emptyOutDir: true },
  });
  return outDir;
}

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
};

/** Serves the built demo, any unknown path answering with index.html (a single-page app), with the config inlined. */
export async function serveDemo(dir: string, config: unknown) {
  const index = readFileSync(path.join(dir, "index.html"), "utf8").replace(
    "<!--gatehouse-demo-config-->",
    `<script>window.__GATEHOUSE_DEMO__ = ${JSON.stringify(config)};</script>`,
  );
  const server = createServer((request, response) => {
    const pathname = decodeURIComponent(new URL(request.url ?? "/", "http://x").pathname);
    const file = path.join(dir, pathname);
    if (pathname.startsWith("/assets/") && file.startsWith(dir)) {
      try {
        const body = readFileSync(file);
        response.writeHead(200, { "content-type": TYPES[path.extname(file)] ?? "application/octet-stream" });
        response.end(body);
        return;
      } catch {
        // Falls through to a 404 below.
      }
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { "content-type": TYPES[".html"] });
    response.end(index);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    // `localhost` rather than the IP: WebAuthn needs a domain as relying party, and the project trusts localhost.
    url: `http://localhost:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export async function startDemo(settings: ProjectSettings = {}): Promise<Demo> {
  const [session, dist] = await Promise.all([startBrowserTest(), buildDemo()]);
  const gatehouse = session.server;
  const project = await createProjectThroughApi(gatehouse.baseUrl, settings);
  const site = await serveDemo(dist, {
    baseUrl: gatehouse.baseUrl,
    projectId: project.id,
    publishableClientKey: project.publishableClientKey,
  });
  const server = new GatehouseServerApp({
    projectId: project.id,
    baseUrl: gatehouse.baseUrl,
    publishableClientKey: project.publishableClientKey,
    secretServerKey: project.secretServerKey,
    tokenStore: "memory",
    redirectMethod: "none",
    noAutomaticPrefetch: true,
  });

  return {
    apiUrl: gatehouse.baseUrl,
    url: site.url,
    project,
    browser: session.browser,
    server,
    newPage: (options) => session.newPage(options),
    async createUser(email, password, options = {}) {
      const user = await server.createUser({
        primaryEmail: email,
        password,
        primaryEmailVerified: true,
        primaryEmailAuthEnabled: true,
        ...(options.displayName ? { displayName: options.displayName } : {}),
      });
      return user.id;
    },
    async latestEmail(address, subject) {
      const emails = await emailsTo(gatehouse, project.id, address);
      const email = emails.find((candidate) => !subject || subject.test(candidate.subject));
      if (!email) throw new Error(`No e-mail${subject ? ` matching ${subject}` : ""} was sent to ${address}`);
      return { subject: email.subject, text: email.text ?? "", code: codeFromEmail(email.text ?? "") };
    },
    async close() {
      await site.close();
      await session.close();
      rmSync(dist, { recursive: true, force: true });
    },
  };
}

/**
 * Saves the page as it is now in the light and in the dark theme (the demo follows the system setting), under
 * e2e/artifacts/screenshots/<name>-light.png and -dark.png.
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  // Parts of the page still loading (the header's user button) would show as placeholders.
  await page.waitForFunction(() => !document.querySelector("[data-gh-pending]"));
  for (const colorScheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme });
    await saveScreenshot(page, `${name}-${colorScheme}`, { animations: "disabled" });
  }
  await page.emulateMedia({ colorScheme: "light" });
}

let counter = 0;
export function uniqueEmail(prefix: string): string {
  counter++;
  return `${prefix}-${counter}-${Math.random().toString(36).slice(2, 8)}@example.com`;
}

/** The link with `code=` from an e-mail's text. */
export function linkFrom(text: string): string {
  const match = /https?:\/\/\S+[?&]code=[0-9a-z]+/i.exec(text);
  if (!match) throw new Error(`No link in e-mail:\n${text}`);
  return match[0];
}

function base32Decode(text: string): Uint8Array {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  let bits = 0;
  let value = 0;
  const out: number[] = [];
  for (const char of text.replace(/[\s=]/g, "").toUpperCase()) {
    value = (value << 5) | alphabet.indexOf(char);
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return new Uint8Array(out);
}

/** The authenticator app's code for a base32 secret, at `now`. */
export function totpFor(base32Secret: string, now = Date.now()): string {
  return totpCode(base32Decode(base32Secret), now);
}
