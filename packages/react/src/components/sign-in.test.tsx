// @vitest-environment happy-dom
import { MFA_ATTEMPT_CODE_STORAGE_KEY } from "@gatehouse/js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fakeApi, known, signInReply } from "../testing/fake-api.ts";
import {
  button,
  byText,
  cleanup,
  click,
  errorOf,
  field,
  findText,
  render,
  type,
  waitFor,
} from "../testing/render.tsx";
import { SignIn } from "./sign-in.tsx";

beforeEach(() => {
  window.history.replaceState(null, "", "/handler/sign-in");
  sessionStorage.clear();
});
afterEach(cleanup);

describe("SignIn: the password form", () => {
  it("checks the fields before sending anything", async () => {
    const { app, routesCalled } = fakeApi();
    const page = await render(app, <SignIn />);
    await findText(page, "Sign in");
    await click(button(page, "Sign in"));
    expect(errorOf(field(page, "E-mail"))).toBe("This field is required.");
    expect(errorOf(field(page, "Password"))).toBe("This field is required.");

    await type(field(page, "E-mail"), "not an email");
    await type(field(page, "Password"), "whatever");
    await click(button(page, "Sign in"));
    expect(errorOf(field(page, "E-mail"))).toBe("Enter a valid e-mail address.");
    expect(errorOf(field(page, "Password"))).toBeNull();
    expect(routesCalled()).not.toContain("POST /auth/password/sign-in");
  });

  it("shows a wrong password next to the password field", async () => {
    const { app, calls } = fakeApi({ "POST /auth/password/sign-in": () => known("EMAIL_PASSWORD_MISMATCH") });
    const page = await render(app, <SignIn />);
    await findText(page, "Sign in");
    await type(field(page, "E-mail"), " sam@example.com ");
    await type(field(page, "Password"), "wrong password");
    await click(button(page, "Sign in"));
    await waitFor(() => errorOf(field(page, "Password")) === "Wrong e-mail or password");
    expect(calls.find((call) => call.route === "POST /auth/password/sign-in")?.body).toEqual({
      email: "sam@example.com",
      password: "wrong password",
    });
    // Accessible: the input is marked invalid and points at its message.
    expect(field(page, "Password").getAttribute("aria-describedby")).toContain("-error");
  });

  it("goes where after_auth_return_to says once signed in", async () => {
    window.history.replaceState(null, "", "/handler/sign-in?after_auth_return_to=%2Fprotected");
    const { app, navigated } = fakeApi({ "POST /auth/password/sign-in": () => signInReply() });
    const page = await render(app, <SignIn />);
    await findText(page, "Sign in");
    await type(field(page, "E-mail"), "sam@example.com");
    await type(field(page, "Password"), "right password");
    await click(button(page, "Sign in"));
    await waitFor(() => navigated.includes("/protected"));
  });

  it("sends a user with two-factor authentication to the MFA page with the attempt code", async () => {
    const attempt = "m".repeat(45);
    const { app, navigated } = fakeApi({
      "POST /auth/password/sign-in": () =>
        known("MULTI_FACTOR_AUTHENTICATION_REQUIRED", { attempt_code: attempt }),
    });
    const page = await render(app, <SignIn />);
    await findText(page, "Sign in");
    await type(field(page, "E-mail"), "sam@example.com");
    await type(field(page, "Password"), "right password");
    await click(button(page, "Sign in"));
    await waitFor(() => navigated.includes("/handler/mfa"));
    expect(sessionStorage.getItem(MFA_ATTEMPT_CODE_STORAGE_KEY)).toBe(attempt);
    expect(page.querySelector(".gh-field-error")).toBeNull();
  });

  it("shows a server it cannot reach as a message on the form", async () => {
    const { app } = fakeApi({
      "POST /auth/password/sign-in": () => known("PASSWORD_AUTHENTICATION_NOT_ENABLED"),
    });
    const page = await render(app, <SignIn />);
    await findText(page, "Sign in");
    await type(field(page, "E-mail"), "sam@example.com");
    await type(field(page, "Password"), "right password");
    await click(button(page, "Sign in"));
    await findText(page, "Password sign-in is not enabled for this project.");
    expect(page.querySelector('[role="alert"]')).not.toBeNull();
  });
});

describe("SignIn: only the methods the project enables", () => {
  it("shows OAuth buttons, the passkey button and both tabs when all are on", async () => {
    const { app } = fakeApi(
      {},
      {
        project: {
          magic_link_enabled: true,
          passkey_enabled: true,
          enabled_oauth_providers: [{ id: "google" }, { id: "github" }],
        },
      },
    );
    const page = await render(app, <SignIn />);
    await findText(page, "Continue with Google");
    expect(byText(page, "Continue with GitHub")).not.toBeNull();
    expect(byText(page, "Sign in with a passkey")).not.toBeNull();
    expect(page.querySelectorAll('[role="tab"]').length).toBe(2);
  });

  it("shows only the e-mail code form when passwords are off, and no sign-up link when sign-up is", async () => {
    const { app } = fakeApi(
      {},
      { project: { credential_enabled: false, magic_link_enabled: true, sign_up_enabled: false } },
    );
    const page = await render(app, <SignIn />);
    await findText(page, "Send code");
    expect(page.querySelector('input[type="password"]')).toBeNull();
    expect(page.querySelector('[role="tab"]')).toBeNull();
    expect(byText(page, "Sign up")).toBeNull();
    expect(byText(page, "Sign in with a passkey")).toBeNull();
  });

  it("says so when no method is enabled", async () => {
    const { app } = fakeApi({}, { project: { credential_enabled: false } });
    const page = await render(app, <SignIn />);
    await findText(page, "This project has no sign-in method enabled.");
  });
});

describe("SignIn: the e-mail code form", () => {
  async function codeStep(reply: Parameters<typeof fakeApi>[0] = {}) {
    const api = fakeApi(
      { "POST /auth/otp/send-sign-in-code": () => ({ body: { nonce: "n".repeat(39) } }), ...reply },
      { project: { credential_enabled: false, magic_link_enabled: true } },
    );
    const page = await render(api.app, <SignIn />);
    await findText(page, "Send code");
    await click(button(page, "Send code"));
    expect(errorOf(field(page, "E-mail"))).toBe("This field is required.");
    await type(field(page, "E-mail"), "sam@example.com");
    await click(button(page, "Send code"));
    await findText(page, /We sent a sign-in code to sam@example.com/);
    return { ...api, page };
  }

  it("checks the code's length, then signs in with the typed code and the nonce", async () => {
    const { page, calls, navigated } = await codeStep({ "POST /auth/otp/sign-in": () => signInReply() });
    await type(field(page, "Sign-in code"), "ab1");
    await click(button(page, "Sign in"));
    expect(errorOf(field(page, "Sign-in code"))).toBe("The code has 6 characters.");
    await type(field(page, "Sign-in code"), "ab12cd");
    expect(field(page, "Sign-in code").value).toBe("AB12CD");
    await click(button(page, "Sign in"));
    await waitFor(() => navigated.includes("/"));
    expect(calls.find((call) => call.route === "POST /auth/otp/sign-in")?.body).toEqual({
      code: `ab12cd${"n".repeat(39)}`,
    });
  });

  it.each([
    ["VERIFICATION_CODE_NOT_FOUND", "This code is not valid. Check it and try again."],
    ["VERIFICATION_CODE_EXPIRED", "This code has expired. Request a new one."],
    ["VERIFICATION_CODE_ALREADY_USED", "This code has already been used."],
    ["VERIFICATION_CODE_MAX_ATTEMPTS_REACHED", "This code was tried too many times. Request a new one."],
  ])("shows %s next to the code", async (code, message) => {
    const { page } = await codeStep({ "POST /auth/otp/sign-in": () => known(code) });
    await type(field(page, "Sign-in code"), "AB12CD");
    await click(button(page, "Sign in"));
    await waitFor(() => errorOf(field(page, "Sign-in code")) === message);
  });

  it("shows an unverified existing account next to the e-mail", async () => {
    const { app } = fakeApi(
      {
        "POST /auth/otp/send-sign-in-code": () =>
          known("USER_EMAIL_ALREADY_EXISTS", {
            email: "sam@example.com",
            would_work_if_email_was_verified: true,
          }),
      },
      { project: { credential_enabled: false, magic_link_enabled: true } },
    );
    const page = await render(app, <SignIn />);
    await findText(page, "Send code");
    await type(field(page, "E-mail"), "sam@example.com");
    await click(button(page, "Send code"));
    await waitFor(() =>
      errorOf(field(page, "E-mail"))?.startsWith("An account with this e-mail already exists, but"),
    );
  });
});

describe("SignIn when signed in already", () => {
  it("offers to continue or to sign out", async () => {
    const { app } = fakeApi({}, { signedIn: true });
    const page = await render(app, <SignIn />);
    await findText(page, "You are already signed in");
    expect(byText(page, "Signed in as Sam Rivera")).not.toBeNull();
  });
});
