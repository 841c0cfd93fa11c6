/**
 * OAuth sign-in in a real browser (Debian's Chromium): the redirects, the development provider's sign-in page and
 * the cookies behave as a user's browser sees them. Gatehouse listens on 127.0.0.1:<port>; the app's callback page is
 * a tiny server on http://localhost:<another port>, from where the test exchanges the code like an app would.
 */
import { createHash, randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BrowserTest, startBrowserTest } from "../../testing/browser.ts";
import { uniqueEmail } from "../../testing/known-errors.ts";
import type { ListeningServer } from "../../testing/listening-server.ts";
import { devProviderEmail } from "./dev-provider.ts";

let app: { url: string; server: Server } | undefined;
let session: BrowserTest | undefined;
let gatehouse: ListeningServer | undefined;
let project: { id: string; publishableClientKey: string };

beforeAll(async () => {
  const appServer = createServer((_request, response) => {
    response.writeHead(200, { "content-type": "text/html" });
    response.end("<p>the app</p>");
  });
  await new Promise<void>((resolve) => appServer.listen(0, "127.0.0.1", resolve));
  app = { url: `http://localhost:${(appServer.address() as AddressInfo).port}`, server: appServer };
  session = await startBrowserTest();
  gatehouse = session.server;
  const created = await gatehouse.createProject("OAuth in a browser");
  await created.configure({ "auth.oauth.providers.github": { isShared: true } });
  project = { id: created.id, publishableClientKey: created.keys.publishableClientKey };
});
afterAll(async () => {
  await session?.close();
  await new Promise((resolve) => (app ? app.server.close(resolve) : resolve(undefined)));
});

describe("OAuth sign-in in Chromium", () => {
  it("goes from the app through the development provider's page back to the app, and the code signs in", async () => {
    const verifier = randomBytes(32).toString("base64url");
    const state = randomBytes(16).toString("hex");
    const redirectUri = `${app!.url}/handler/oauth-callback`;
    const authorize = new URL(`${gatehouse!.baseUrl}/api/v1/auth/oauth/authorize/github`);
    for (const [key, value] of Object.entries({
      client_id: project.id,
      client_secret: project.publishableClientKey,
      redirect_uri: redirectUri,
      scope: "legacy",
      state,
      grant_type: "authorization_code",
      code_challenge: createHash("sha256").update(verifier).digest("base64url"),
      code_challenge_method: "S256",
      response_type: "code",
      type: "authenticate",
      error_redirect_url: `${app!.url}/handler/error`,
    })) {
      authorize.searchParams.set(key, value);
    }

    const { context, page } = await session!.newPage();
    try {
      await page.goto(authorize.toString());
      await page.waitForSelector('input[name="email"]');
      expect(await page.textContent("h1")).toContain("github");
      const email = uniqueEmail("browser");
      await page.fill('input[name="email"]', email);
      await Promise.all([
        page.waitForURL((url) => url.toString().startsWith(redirectUri)),
        page.click('button[value="sign-in"]'),
      ]);
      const landed = new URL(page.url());
      expect(landed.searchParams.get("state")).toBe(state);
      expect(landed.searchParams.get("errorCode")).toBeNull();
      // The inner cookie was used up on the way.
      const cookies = await context.cookies(gatehouse!.baseUrl);
      expect(cookies.filter((cookie) => cookie.name.startsWith("stack-oauth-inner-"))).toEqual([]);

      const token = await fetch(`${gatehouse!.baseUrl}/api/v1/auth/oauth/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          grant_type: "authorization_code",
          code: landed.searchParams.get("code")!,
          redirect_uri: redirectUri,
          code_verifier: verifier,
          client_id: project.id,
          client_secret: project.publishableClientKey,
        }),
      });
      expect(token.status).toBe(200);
      const body = (await token.json()) as { access_token: string; is_new_user: boolean };
      expect(body.is_new_user).toBe(true);
      const me = await fetch(`${gatehouse!.baseUrl}/api/v1/users/me`, {
        headers: {
          "x-stack-project-id": project.id,
          "x-stack-access-type": "client",
          "x-stack-publishable-client-key": project.publishableClientKey,
          "x-stack-access-token": body.access_token,
        },
      });
      expect(((await me.json()) as { primary_email: string }).primary_email).toBe(devProviderEmail(email));
    } finally {
      await context.close();
    }
  });
});
