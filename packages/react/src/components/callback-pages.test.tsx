// @vitest-environment happy-dom
import { MFA_ATTEMPT_CODE_STORAGE_KEY } from "@gatehouse/js";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { fakeApi, known, signInReply } from "../testing/fake-api.ts";
import {
  button,
  cleanup,
  click,
  errorOf,
  field,
  findText,
  render,
  type,
  waitFor,
} from "../testing/render.tsx";
import { EmailVerification, MagicLinkCallback, OAuthCallback } from "./callback-pages.tsx";
import { CliAuthConfirm } from "./cli-auth-confirm.tsx";
import { ErrorPage } from "./error-page.tsx";
import { MfaCodeEntry } from "./mfa.tsx";
import { TeamInvitation } from "./teams/team-invitation.tsx";

const CODE = "e".repeat(45);
afterEach(cleanup);
beforeEach(() => sessionStorage.clear());

describe("EmailVerification", () => {
  it("verifies only after the click, then confirms", async () => {
    const { app, routesCalled } = fakeApi({
      "POST /contact-channels/verify": () => ({ body: { success: true } }),
    });
    const page = await render(app, <EmailVerification code={CODE} />);
    await findText(page, "Verify your e-mail");
    expect(routesCalled()).not.toContain("POST /contact-channels/verify");
    await click(button(page, "Verify e-mail"));
    await findText(page, "E-mail verified");
  });

  it("says when the link was used", async () => {
    const { app } = fakeApi({
      "POST /contact-channels/verify": () => known("VERIFICATION_CODE_ALREADY_USED"),
    });
    const page = await render(app, <EmailVerification code={CODE} />);
    await click(button(page, "Verify e-mail"));
    await findText(page, "This link has already been used.");
  });
});

describe("MagicLinkCallback", () => {
  it("signs in with the link's code and goes on", async () => {
    const { app, calls, navigated } = fakeApi({ "POST /auth/otp/sign-in": () => signInReply(true) });
    const page = await render(app, <MagicLinkCallback code={CODE} />);
    await click(button(page, "Sign in"));
    await waitFor(() => navigated.includes("/"));
    expect(calls.find((call) => call.route === "POST /auth/otp/sign-in")?.body).toEqual({ code: CODE });
  });

  it("explains an expired link", async () => {
    const { app } = fakeApi({ "POST /auth/otp/sign-in": () => known("VERIFICATION_CODE_EXPIRED") });
    const page = await render(app, <MagicLinkCallback code={CODE} />);
    await click(button(page, "Sign in"));
    await findText(page, "This link has expired. Request a new one.");
  });
});

describe("OAuthCallback", () => {
  it("shows the callback's failure with the alert of SPEC.md §8", async () => {
    window.history.replaceState(null, "", `/handler/oauth-callback?code=${"0".repeat(64)}&state=s1`);
    // biome-ignore lint/suspicious/noDocumentCookie: the SDK keeps the PKCE verifier in this cookie.
    document.cookie = "stack-oauth-outer-s1=verifier; path=/";
    const alert = vi.fn();
    vi.stubGlobal("alert", alert);
    const { app } = fakeApi({ "POST /auth/oauth/token": () => known("INVALID_AUTHORIZATION_CODE") });
    const page = await render(app, <OAuthCallback />);
    await findText(page, "Error signing in during OAuth callback. Please try again.");
    expect(alert).toHaveBeenCalledWith("Error signing in during OAuth callback. Please try again.");
    expect(window.location.search).toBe("");
    vi.unstubAllGlobals();
  });

  it("shows the TOTP alert for an invalid TOTP code", async () => {
    window.history.replaceState(null, "", `/handler/oauth-callback?code=${"1".repeat(64)}&state=s2`);
    // biome-ignore lint/suspicious/noDocumentCookie: the SDK keeps the PKCE verifier in this cookie.
    document.cookie = "stack-oauth-outer-s2=verifier; path=/";
    const alert = vi.fn();
    vi.stubGlobal("alert", alert);
    const { app } = fakeApi({ "POST /auth/oauth/token": () => known("INVALID_TOTP_CODE") });
    const page = await render(app, <OAuthCallback />);
    await findText(page, "Invalid TOTP code. Please try signing in again.");
    expect(alert).toHaveBeenCalledWith("Invalid TOTP code. Please try signing in again.");
    vi.unstubAllGlobals();
  });
});

describe("MfaCodeEntry", () => {
  it("says the attempt is gone without an attempt code", async () => {
    const { app } = fakeApi();
    const page = await render(app, <MfaCodeEntry />);
    await findText(page, "This sign-in attempt has expired. Sign in again.");
  });

  it("keeps to digits, shows a wrong code, and signs in with a right one", async () => {
    sessionStorage.setItem(MFA_ATTEMPT_CODE_STORAGE_KEY, "a".repeat(45));
    let tries = 0;
    const { app, calls, navigated } = fakeApi({
      "POST /auth/mfa/sign-in": () => (++tries === 1 ? known("INVALID_TOTP_CODE") : signInReply()),
    });
    const page = await render(app, <MfaCodeEntry />);
    await click(button(page, "Verify"));
    expect(errorOf(field(page, "Authentication code"))).toBe("This field is required.");
    await type(field(page, "Authentication code"), "12ab3");
    expect(field(page, "Authentication code").value).toBe("123");
    await click(button(page, "Verify"));
    expect(errorOf(field(page, "Authentication code"))).toBe(
      "Enter the 6 digits shown in your authenticator app.",
    );
    // Six digits send the form by themselves.
    await type(field(page, "Authentication code"), "123456");
    await waitFor(() => errorOf(field(page, "Authentication code"))?.startsWith("That code is not right"));
    await type(field(page, "Authentication code"), "654321");
    await waitFor(() => navigated.includes("/"));
    expect(calls.filter((call) => call.route === "POST /auth/mfa/sign-in").at(-1)?.body).toEqual({
      type: "totp",
      totp: "654321",
      code: "a".repeat(45),
    });
    expect(sessionStorage.getItem(MFA_ATTEMPT_CODE_STORAGE_KEY)).toBeNull();
  });
});

describe("CliAuthConfirm", () => {
  it("asks a signed-out visitor to sign in first", async () => {
    const { app } = fakeApi({}, {});
    const page = await render(app, <CliAuthConfirm loginCode={CODE} />);
    await findText(page, "Sign in to authorize the command-line login.");
  });

  it("explains a login code the server does not know", async () => {
    const { app } = fakeApi(
      {
        "POST /auth/cli/complete": () => ({
          status: 400,
          body: "Invalid login code or the code has expired",
        }),
      },
      { signedIn: true },
    );
    vi.spyOn(console, "error").mockImplementation(() => {});
    const page = await render(app, <CliAuthConfirm loginCode={CODE} />);
    await click(button(page, "Authorize"));
    await findText(page, /This login link is invalid or has expired/);
    vi.restoreAllMocks();
  });

  it("completes the login with the session's refresh token", async () => {
    const { app, calls } = fakeApi(
      { "POST /auth/cli/complete": () => ({ body: { success: true } }) },
      { signedIn: true },
    );
    const page = await render(app, <CliAuthConfirm loginCode={CODE} />);
    await click(button(page, "Authorize"));
    await findText(page, /You are signed in on the command line/);
    expect(calls.find((call) => call.route === "POST /auth/cli/complete")?.body).toEqual({
      login_code: CODE,
      refresh_token: "refresh-token",
    });
  });
});

describe("TeamInvitation", () => {
  it("shows the team, and an invitation meant for another address", async () => {
    const { app } = fakeApi(
      {
        "POST /team-invitations/accept/details": () => ({
          body: { team_id: "t", team_display_name: "Acme Research" },
        }),
        "POST /team-invitations/accept": () => known("TEAM_INVITATION_EMAIL_MISMATCH"),
      },
      { signedIn: true },
    );
    const page = await render(app, <TeamInvitation code={CODE} />);
    await findText(page, "You have been invited to join Acme Research.");
    await click(button(page, "Join team"));
    await findText(page, /This invitation was sent to another e-mail address/);
  });

  it("explains an invalid invitation link", async () => {
    const { app } = fakeApi(
      { "POST /team-invitations/accept/details": () => known("VERIFICATION_CODE_NOT_FOUND") },
      { signedIn: true },
    );
    const page = await render(app, <TeamInvitation code={"f".repeat(45)} />);
    await findText(page, "This link is not valid.");
  });
});

describe("ErrorPage", () => {
  it("words known error codes and falls back to the server's message", async () => {
    const { app } = fakeApi();
    const page = await render(app, <ErrorPage errorCode="EMAIL_PASSWORD_MISMATCH" />);
    await findText(page, "Wrong e-mail or password");
    await cleanup();
    const other = await render(app, <ErrorPage errorCode="SOMETHING_NEW" message="The provider said no." />);
    await findText(other, "The provider said no.");
  });
});
