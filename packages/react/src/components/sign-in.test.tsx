// @vitest-environment happy-dom
import { MFA_ATTEMPT_CODE_STORAGE_KEY } from "@gatehouse/js";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { uniqueEmail } from "../../../js/src/testing/apps.ts";
import { createTestProject, type TestProject, testServerForFile } from "../testing/gatehouse.ts";
import {
  button,
  byText,
  click,
  errorOf,
  field,
  findText,
  render,
  type,
  waitFor,
} from "../testing/render.tsx";
import { SignIn } from "./sign-in.tsx";

const gatehouse = testServerForFile();
let passwords: TestProject;

beforeAll(async () => {
  passwords = await createTestProject(gatehouse());
});
beforeEach(() => {
  window.history.replaceState(null, "", "/handler/sign-in");
  sessionStorage.clear();
});

async function fillPasswordForm(page: HTMLElement, email: string, password: string) {
  await findText(page, "Sign in");
  await type(field(page, "E-mail"), email);
  await type(field(page, "Password"), password);
  await click(button(page, "Sign in"));
}

describe("SignIn: the password form", () => {
  it("checks the fields before sending anything", async () => {
    const { app, routesCalled } = await passwords.client();
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
    const user = await passwords.createUser();
    const { app, lastBody } = await passwords.client();
    const page = await render(app, <SignIn />);
    await fillPasswordForm(page, ` ${user.email} `, "wrong password");
    await waitFor(() => errorOf(field(page, "Password")) === "Wrong e-mail or password");
    expect(lastBody("POST /auth/password/sign-in")).toEqual({
      email: user.email,
      password: "wrong password",
    });
    // Accessible: the input is marked invalid and points at its message.
    expect(field(page, "Password").getAttribute("aria-describedby")).toContain("-error");
    expect(await app.getUser()).toBeNull();
  });

  it("goes where after_auth_return_to says once signed in", async () => {
    window.history.replaceState(null, "", "/handler/sign-in?after_auth_return_to=%2Fprotected");
    const user = await passwords.createUser();
    const { app, navigated } = await passwords.client();
    const page = await render(app, <SignIn />);
    await fillPasswordForm(page, user.email, user.password);
    await waitFor(() => navigated.includes("/protected"));
    expect((await app.getUser())?.id).toBe(user.id);
  });

  it("sends a user with two-factor authentication to the MFA page with the attempt code", async () => {
    const user = await passwords.createUser();
    await (await passwords.server.getUser(user.id))!.update({
      totpMultiFactorSecret: crypto.getRandomValues(new Uint8Array(20)),
    });
    const { app, navigated } = await passwords.client();
    const page = await render(app, <SignIn />);
    await fillPasswordForm(page, user.email, user.password);
    await waitFor(() => navigated.includes("/handler/mfa"));
    expect(sessionStorage.getItem(MFA_ATTEMPT_CODE_STORAGE_KEY)).toMatch(/^[0-9a-z]{45}$/);
    expect(page.querySelector(".gh-field-error")).toBeNull();
    expect(await app.getUser()).toBeNull();
  });

  it("shows a refusal of the whole attempt as a message on the form", async () => {
    const project = await createTestProject(gatehouse());
    const user = await project.createUser();
    const { app } = await project.client();
    const page = await render(app, <SignIn />);
    await findText(page, "Sign in");
    // The owner turns passwords off while the page is open: the server refuses what the page still offers.
    await project.configure({ credentialEnabled: false });
    await fillPasswordForm(page, user.email, user.password);
    await findText(page, "Password sign-in is not enabled for this project.");
    expect(page.querySelector('[role="alert"]')).not.toBeNull();
  });
});

describe("SignIn: only the methods the project enables", () => {
  it("shows OAuth buttons, the passkey button and both tabs when all are on", async () => {
    const project = await createTestProject(gatehouse(), {
      magicLinkEnabled: true,
      passkeyEnabled: true,
      oauthProviders: [
        { id: "google", type: "shared" },
        { id: "github", type: "shared" },
      ],
    });
    const page = await render((await project.client()).app, <SignIn />);
    await findText(page, "Continue with Google");
    expect(byText(page, "Continue with GitHub")).not.toBeNull();
    expect(byText(page, "Sign in with a passkey")).not.toBeNull();
    expect(page.querySelectorAll('[role="tab"]').length).toBe(2);
  });

  it("shows only the e-mail code form when passwords are off, and no sign-up link when sign-up is", async () => {
    const project = await createTestProject(gatehouse(), {
      credentialEnabled: false,
      magicLinkEnabled: true,
      signUpEnabled: false,
    });
    const page = await render((await project.client()).app, <SignIn />);
    await findText(page, "Send code");
    expect(page.querySelector('input[type="password"]')).toBeNull();
    expect(page.querySelector('[role="tab"]')).toBeNull();
    expect(byText(page, "Sign up")).toBeNull();
    expect(byText(page, "Sign in with a passkey")).toBeNull();
  });

  it("says so when no method is enabled", async () => {
    const project = await createTestProject(gatehouse(), { credentialEnabled: false });
    const page = await render((await project.client()).app, <SignIn />);
    await findText(page, "This project has no sign-in method enabled.");
  });
});

describe("SignIn: the e-mail code form", () => {
  let codes: TestProject;
  beforeAll(async () => {
    codes = await createTestProject(gatehouse(), { credentialEnabled: false, magicLinkEnabled: true });
  });

  /** The form after sending a code to a (verified) user; `code` is the full one from the e-mail. */
  async function codeStep() {
    const user = await codes.createUser();
    const client = await codes.client();
    const page = await render(client.app, <SignIn />);
    await findText(page, "Send code");
    await click(button(page, "Send code"));
    expect(errorOf(field(page, "E-mail"))).toBe("This field is required.");
    await type(field(page, "E-mail"), user.email);
    await click(button(page, "Send code"));
    await findText(page, new RegExp(`We sent a sign-in code to ${user.email}`));
    const code = await codes.latestEmailCode(user.email);
    return { ...client, page, user, code, typed: code.slice(0, 6), nonce: code.slice(6) };
  }

  async function enter(page: HTMLElement, typed: string) {
    await type(field(page, "Sign-in code"), typed);
    await click(button(page, "Sign in"));
  }

  it("checks the code's length, then signs in with the typed code and the nonce", async () => {
    const { page, app, navigated, lastBody, user, code, typed } = await codeStep();
    await enter(page, typed.slice(0, 3));
    expect(errorOf(field(page, "Sign-in code"))).toBe("The code has 6 characters.");
    await type(field(page, "Sign-in code"), typed);
    expect(field(page, "Sign-in code").value).toBe(typed.toUpperCase());
    await click(button(page, "Sign in"));
    await waitFor(() => navigated.includes("/"));
    expect(lastBody("POST /auth/otp/sign-in")).toEqual({ code });
    expect((await app.getUser())?.id).toBe(user.id);
  });

  it("shows a wrong code next to the code", async () => {
    const { page, typed } = await codeStep();
    await enter(page, typed === "zzzzzz" ? "yyyyyy" : "zzzzzz");
    await waitFor(
      () => errorOf(field(page, "Sign-in code")) === "This code is not valid. Check it and try again.",
    );
  });

  it("shows an expired code next to the code", async () => {
    const { page, typed } = await codeStep();
    await codes.expireCodes();
    await enter(page, typed);
    await waitFor(() => errorOf(field(page, "Sign-in code")) === "This code has expired. Request a new one.");
  });

  it("shows a code already used (e.g. through the magic link) next to the code", async () => {
    const { page, typed, code } = await codeStep();
    const elsewhere = await codes.client();
    expect((await elsewhere.app.signInWithMagicLink(code, { noRedirect: true })).status).toBe("ok");
    await enter(page, typed);
    await waitFor(() => errorOf(field(page, "Sign-in code")) === "This code has already been used.");
  });

  it("shows a code tried too many times next to the code", async () => {
    const { page, typed, nonce } = await codeStep();
    const guesser = await codes.client();
    const wrong = typed === "zzzzzz" ? "yyyyyy" : "zzzzzz";
    // The server counts every attempt on a nonce and gives up after 20 (MAX_CODE_ATTEMPTS).
    for (let attempt = 0; attempt < 20; attempt++) {
      await guesser.app.signInWithMagicLink(`${wrong}${nonce}`, { noRedirect: true });
    }
    await enter(page, typed);
    await waitFor(
      () => errorOf(field(page, "Sign-in code")) === "This code was tried too many times. Request a new one.",
    );
  });

  it("shows an unverified existing account next to the e-mail", async () => {
    const email = uniqueEmail("unverified");
    await codes.server.createUser({
      primaryEmail: email,
      primaryEmailVerified: false,
      primaryEmailAuthEnabled: true,
    });
    const { app } = await codes.client();
    const page = await render(app, <SignIn />);
    await findText(page, "Send code");
    await type(field(page, "E-mail"), email);
    await click(button(page, "Send code"));
    await waitFor(() =>
      errorOf(field(page, "E-mail"))?.startsWith("An account with this e-mail already exists, but"),
    );
  });
});

describe("SignIn when signed in already", () => {
  it("offers to continue or to sign out", async () => {
    const user = await passwords.createUser({ displayName: "Sam Rivera" });
    const { app } = await passwords.client({ signedInAs: user });
    const page = await render(app, <SignIn />);
    await findText(page, "You are already signed in");
    expect(byText(page, "Signed in as Sam Rivera")).not.toBeNull();
  });
});
