// @vitest-environment happy-dom
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
import { SignUp } from "./sign-up.tsx";

beforeEach(() => window.history.replaceState(null, "", "/handler/sign-up"));
afterEach(cleanup);

async function filled(
  routes: Parameters<typeof fakeApi>[0],
  values: { email: string; password: string; repeat: string },
) {
  const api = fakeApi(routes);
  const page = await render(api.app, <SignUp />);
  await findText(page, "Create your account");
  await type(field(page, "E-mail"), values.email);
  await type(field(page, "Password"), values.password);
  await type(field(page, "Repeat password"), values.repeat);
  await click(button(page, "Create account"));
  return { ...api, page };
}

describe("SignUp", () => {
  it("checks e-mail, password length and the repeat before sending", async () => {
    const { page, routesCalled } = await filled({}, { email: "x@", password: "short", repeat: "other" });
    expect(errorOf(field(page, "E-mail"))).toBe("Enter a valid e-mail address.");
    expect(errorOf(field(page, "Password"))).toBe("Use at least 8 characters.");
    expect(errorOf(field(page, "Repeat password"))).toBe("Passwords do not match");
    expect(routesCalled()).not.toContain("POST /auth/password/sign-up");

    // Fixed fields lose their message as the user types.
    await type(field(page, "Password"), "long enough 1");
    await type(field(page, "Repeat password"), "long enough 1");
    expect(errorOf(field(page, "Password"))).toBeNull();
    expect(errorOf(field(page, "Repeat password"))).toBeNull();
    expect(errorOf(field(page, "E-mail"))).toBe("Enter a valid e-mail address.");
  });

  it("refuses passwords over 70 characters", async () => {
    const long = "x".repeat(71);
    const { page } = await filled({}, { email: "a@b.co", password: long, repeat: long });
    expect(errorOf(field(page, "Password"))).toBe("Use at most 70 characters.");
  });

  it("shows the server's minimum length next to the password", async () => {
    const { page } = await filled(
      { "POST /auth/password/sign-up": () => known("PASSWORD_TOO_SHORT", { min_length: 12 }) },
      { email: "a@b.co", password: "only10char", repeat: "only10char" },
    );
    await waitFor(() => errorOf(field(page, "Password")) === "Use at least 12 characters.");
  });

  it("shows an existing account next to the e-mail", async () => {
    const { page } = await filled(
      {
        "POST /auth/password/sign-up": () =>
          known("USER_EMAIL_ALREADY_EXISTS", { email: "a@b.co", would_work_if_email_was_verified: false }),
      },
      { email: "a@b.co", password: "long enough 1", repeat: "long enough 1" },
    );
    await waitFor(() => errorOf(field(page, "E-mail")) === "An account with this e-mail already exists.");
  });

  it("signs up with a verification link to this site and goes to the after-sign-up page", async () => {
    const { calls, navigated } = await filled(
      { "POST /auth/password/sign-up": () => signInReply(true) },
      { email: "new@example.com", password: "long enough 1", repeat: "long enough 1" },
    );
    await waitFor(() => navigated.includes("/"));
    expect(calls.find((call) => call.route === "POST /auth/password/sign-up")?.body).toEqual({
      email: "new@example.com",
      password: "long enough 1",
      verification_callback_url: `${window.location.origin}/handler/email-verification`,
    });
  });

  it("says when the project takes no sign-ups", async () => {
    const { app } = fakeApi({}, { project: { sign_up_enabled: false } });
    const page = await render(app, <SignUp />);
    await findText(page, "This project does not accept new sign-ups.");
    expect(page.querySelector("form")).toBeNull();
    expect(byText(page, "Sign in")).not.toBeNull();
  });
});
