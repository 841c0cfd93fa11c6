import { KnownError } from "@gatehouse/shared";
import { afterEach, describe, expect, it } from "vitest";
import type { AppContext } from "./context.ts";
import { handleMfaRequired } from "./sign-in.ts";

/** The MFA page sits between sign-in and where the user was going; the way back must survive it. */
describe("handleMfaRequired", () => {
  const original = (globalThis as { window?: unknown }).window;
  afterEach(() => {
    (globalThis as { window?: unknown }).window = original;
  });

  function at(href: string) {
    const url = new URL(href);
    (globalThis as { window?: unknown }).window = { location: { href: url.href, origin: url.origin } };
  }

  function contextRecording(navigated: string[]) {
    return {
      urls: { mfa: "/handler/mfa" },
      redirector: { redirectTo: async (url: string) => void navigated.push(url) },
    } as unknown as AppContext;
  }

  const mfaError = () =>
    new KnownError("MULTI_FACTOR_AUTHENTICATION_REQUIRED", { attempt_code: "x".repeat(45) });

  it("carries after_auth_return_to over to the MFA page", async () => {
    at("https://app.example/handler/sign-in?after_auth_return_to=%2Fprotected%3Ftab%3D2");
    const navigated: string[] = [];
    expect(await handleMfaRequired(contextRecording(navigated), mfaError())).toBe(true);
    expect(navigated).toEqual(["/handler/mfa?after_auth_return_to=%2Fprotected%3Ftab%3D2"]);
  });

  it("goes to the plain MFA page when there is nowhere to return to", async () => {
    at("https://app.example/handler/sign-in");
    const navigated: string[] = [];
    expect(await handleMfaRequired(contextRecording(navigated), mfaError())).toBe(true);
    expect(navigated).toEqual(["/handler/mfa"]);
  });

  it("leaves other errors alone", async () => {
    at("https://app.example/handler/sign-in?after_auth_return_to=%2Fx");
    const navigated: string[] = [];
    expect(
      await handleMfaRequired(contextRecording(navigated), new KnownError("EMAIL_PASSWORD_MISMATCH")),
    ).toBe(false);
    expect(navigated).toEqual([]);
  });
});
