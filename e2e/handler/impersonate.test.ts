import { GatehouseClientApp } from "@gatehouse/js";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Demo, screenshot, startDemo, uniqueEmail } from "./test-support.ts";

/**
 * The impersonation page: the dashboard opens `<app>/handler/impersonate#access_token=…&refresh_token=…` with an
 * impersonation session it created through the server API. The page drops the fragment from the address, checks
 * the session, and signs the browser in only after "Continue as …". Links carrying the tokens of an ordinary
 * sign-in (login CSRF) or garbage are refused and leave the browser signed out.
 */
let demo: Demo;

beforeAll(async () => {
  demo = await startDemo();
}, 120_000);

afterAll(async () => {
  await demo?.close();
});

const ONE_HOUR = 60 * 60 * 1000;

function impersonationLink(tokens: { accessToken: string; refreshToken: string }): string {
  const fragment = new URLSearchParams({
    access_token: tokens.accessToken,
    refresh_token: tokens.refreshToken,
  });
  return `${demo.url}/handler/impersonate#${fragment}`;
}

async function refreshCookies(context: BrowserContext) {
  return (await context.cookies()).filter((cookie) => cookie.name.startsWith("stack-refresh"));
}

/** What the demo's SDK says about the browser's session, seen through the protected page. */
async function signedInEmail(page: Page): Promise<string | null> {
  await page.goto(`${demo.url}/protected`);
  // Signed out, the page sends the visitor to sign-in; signed in, it shows the user.
  await page.waitForFunction(
    () =>
      window.location.pathname.startsWith("/handler/sign-in") ||
      document.querySelector('[data-testid="user-email"]') !== null,
  );
  if (page.url().includes("/handler/sign-in")) return null;
  return page.getByTestId("user-email").textContent();
}

describe("the impersonation page in the browser", () => {
  it("drops the tokens from the address, shows who, and signs in as them only on Continue", async () => {
    const email = uniqueEmail("robin");
    const userId = await demo.createUser(email, "robin password 1", { displayName: "Robin Vega" });
    const tokens = await demo.server.createSession({
      userId,
      isImpersonation: true,
      expiresInMillis: ONE_HOUR,
    });
    const { context, page, errors } = await demo.newPage();

    await page.goto(impersonationLink(tokens));
    await page.getByRole("heading", { name: "Act as another user" }).waitFor();
    // The refresh token is gone from the address bar and from the history entry.
    expect(page.url()).toBe(`${demo.url}/handler/impersonate`);
    expect(page.url()).not.toContain(tokens.refreshToken);
    expect(await page.evaluate(() => window.location.hash)).toBe("");
    await page.getByText(email).waitFor();
    await page.getByText(/This browser will be signed in as Robin Vega/).waitFor();
    // Nothing is stored before the admin confirms.
    expect(await refreshCookies(context)).toEqual([]);
    await screenshot(page, "impersonate");

    await page.getByRole("button", { name: "Continue as Robin Vega" }).click();
    await page.waitForURL(`${demo.url}/`);
    await page.getByTestId("welcome").getByText("Welcome back, Robin Vega").waitFor();
    expect(await refreshCookies(context)).toHaveLength(1);
    expect(await signedInEmail(page)).toBe(email);
    // Going back does not lead to a page that still holds the tokens.
    expect(page.url()).not.toContain("refresh_token");
    expect(errors).toEqual([]);
    await context.close();
  });

  it("leaves the browser signed out on Cancel", async () => {
    const email = uniqueEmail("cancel");
    const userId = await demo.createUser(email, "cancel password 1", { displayName: "Casey Cancel" });
    const tokens = await demo.server.createSession({
      userId,
      isImpersonation: true,
      expiresInMillis: ONE_HOUR,
    });
    const { context, page, errors } = await demo.newPage();
    await page.goto(impersonationLink(tokens));
    await page.getByRole("button", { name: "Continue as Casey Cancel" }).waitFor();
    await page.getByRole("button", { name: "Cancel", exact: true }).click();
    await page.waitForURL(`${demo.url}/`);
    await page.getByRole("button", { name: "Create an account" }).waitFor();
    expect(await refreshCookies(context)).toEqual([]);
    expect(await signedInEmail(page)).toBeNull();
    expect(errors).toEqual([]);
    await context.close();
  });

  it("refuses the tokens of an ordinary password sign-in (login CSRF) and stays signed out", async () => {
    const email = uniqueEmail("mallory");
    const password = "mallory password 1";
    await demo.createUser(email, password, { displayName: "Mallory" });
    // The attacker's own session, from signing in like any user.
    const attacker = new GatehouseClientApp({
      projectId: demo.project.id,
      baseUrl: demo.apiUrl,
      publishableClientKey: demo.project.publishableClientKey,
      tokenStore: "memory",
      redirectMethod: "none",
      noAutomaticPrefetch: true,
    });
    const signedIn = await attacker.signInWithCredential({ email, password, noRedirect: true });
    expect(signedIn.status).toBe("ok");
    const tokens = {
      accessToken: (await attacker.getAccessToken())!,
      refreshToken: (await attacker.getRefreshToken())!,
    };

    const { context, page, errors } = await demo.newPage();
    await page.goto(impersonationLink(tokens));
    await page.getByText(/does not carry an impersonation session/).waitFor();
    expect(page.url()).toBe(`${demo.url}/handler/impersonate`);
    expect(await page.getByRole("button", { name: /Continue as/ }).count()).toBe(0);
    await screenshot(page, "impersonate-refused");
    expect(await refreshCookies(context)).toEqual([]);
    expect(await signedInEmail(page)).toBeNull();
    expect(errors).toEqual([]);
    await context.close();
  });

  it("explains garbage, a malformed fragment and the session of a deleted user", async () => {
    const { context, page, errors } = await demo.newPage();
    await page.goto(`${demo.url}/handler/impersonate#access_token=nonsense&refresh_token=not-a-token`);
    await page.getByText(/This impersonation link is not valid here/).waitFor();
    expect(page.url()).toBe(`${demo.url}/handler/impersonate`);
    await screenshot(page, "impersonate-invalid");

    // A new document each time: a fragment-only change of the same address would not load the page again.
    await page.goto("about:blank");
    await page.goto(`${demo.url}/handler/impersonate#%%%`);
    await page.getByText(/This impersonation link is incomplete/).waitFor();

    const userId = await demo.createUser(uniqueEmail("revoked"), "revoked password 1");
    const tokens = await demo.server.createSession({
      userId,
      isImpersonation: true,
      expiresInMillis: ONE_HOUR,
    });
    // The user is gone, and their sessions with them.
    await (await demo.server.getUser(userId))!.delete();
    await page.goto("about:blank");
    await page.goto(impersonationLink(tokens));
    await page.getByText(/This impersonation link is not valid here/).waitFor();

    expect(await refreshCookies(context)).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });
});
