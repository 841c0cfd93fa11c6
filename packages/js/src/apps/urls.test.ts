import { describe, expect, it } from "vitest";
import { GatehouseClientApp } from "./client-app.ts";
import { checkRedirectTarget, resolveHandlerUrls, UNTRUSTED_REDIRECT_MESSAGE } from "./urls.ts";

const PROJECT_ID = "0b6e1f2a-1c1d-4e5f-8a9b-0c1d2e3f4a5b";

describe("handler URLs (SPEC.md §2)", () => {
  it("derives every page from the handler path and home", () => {
    const urls = resolveHandlerUrls();
    expect(urls).toMatchObject({
      handler: "/handler",
      home: "/",
      signIn: "/handler/sign-in",
      signUp: "/handler/sign-up",
      signOut: "/handler/sign-out",
      emailVerification: "/handler/email-verification",
      passwordReset: "/handler/password-reset",
      forgotPassword: "/handler/forgot-password",
      oauthCallback: "/handler/oauth-callback",
      magicLinkCallback: "/handler/magic-link-callback",
      accountSettings: "/handler/account-settings",
      error: "/handler/error",
      teamInvitation: "/handler/team-invitation",
      mfa: "/handler/mfa",
      cliAuthConfirm: "/handler/cli-auth-confirm",
      impersonate: "/handler/impersonate",
      afterSignIn: "/",
      afterSignUp: "/",
      afterSignOut: "/",
    });
  });

  it("follows a custom handler path and home, and keeps URLs given explicitly", () => {
    const urls = resolveHandlerUrls({
      handler: "/auth/",
      home: "/app",
      signIn: "/login",
      afterSignIn: "/dash",
    });
    expect(urls).toMatchObject({
      signIn: "/login",
      signUp: "/auth/sign-up",
      afterSignIn: "/dash",
      afterSignUp: "/dash",
      afterSignOut: "/app",
    });
  });
});

describe("redirect targets (SPEC.md §5)", () => {
  it("allows relative paths and same-origin URLs", () => {
    expect(checkRedirectTarget("/handler/sign-in?x=1", null)).toBe("/handler/sign-in?x=1");
    expect(checkRedirectTarget("https://app.example.com/a", "https://app.example.com")).toBe(
      "https://app.example.com/a",
    );
  });

  it("refuses other sites and protocol-relative tricks", () => {
    for (const target of [
      "https://evil.example/",
      "//evil.example",
      "/\\evil.example",
      "javascript:alert(1)",
      "http://app.example.com:8080/",
    ]) {
      expect(() => checkRedirectTarget(target, "https://app.example.com"), target).toThrow(
        UNTRUSTED_REDIRECT_MESSAGE,
      );
    }
    expect(() => checkRedirectTarget("https://app.example.com/", null)).toThrow(UNTRUSTED_REDIRECT_MESSAGE);
  });

  it("redirectMethod none never navigates; a custom navigate is called with the checked target", async () => {
    const quiet = new GatehouseClientApp({ projectId: PROJECT_ID, tokenStore: null, redirectMethod: "none" });
    await quiet.redirectToSignIn();
    const seen: string[] = [];
    const sleeps: number[] = [];
    const routed = new GatehouseClientApp({
      projectId: PROJECT_ID,
      tokenStore: null,
      urls: { afterSignOut: "https://evil.example/" },
      redirectMethod: { navigate: (to) => seen.push(to) },
      runtime: { sleep: async (ms) => void sleeps.push(ms) },
    });
    await routed.redirectToAccountSettings();
    await expect(routed.redirectToAfterSignOut()).rejects.toThrow(UNTRUSTED_REDIRECT_MESSAGE);
    expect(seen).toEqual(["/handler/account-settings"]);
    expect(sleeps).toEqual([2000]);
  });
});

describe("options", () => {
  it("refuses project ids that are neither a UUID nor internal", () => {
    expect(() => new GatehouseClientApp({ projectId: "my-project", tokenStore: null })).toThrow(
      /Invalid project ID/,
    );
    expect(new GatehouseClientApp({ projectId: "internal", tokenStore: null }).projectId).toBe("internal");
  });

  it('refuses tokenStore "cookie" outside a browser', () => {
    const app = new GatehouseClientApp({ projectId: PROJECT_ID, tokenStore: "cookie" });
    expect(() => app.getAccessToken()).toThrow(/only works in a browser/);
  });
});
