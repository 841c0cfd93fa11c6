// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from "vitest";
import { fakeApi, known } from "../testing/fake-api.ts";
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
import { ForgotPassword, PasswordReset } from "./password-pages.tsx";

afterEach(cleanup);
const CODE = "c".repeat(45);

describe("ForgotPassword", () => {
  it("checks the e-mail, then confirms without saying whether the account exists", async () => {
    window.history.replaceState(null, "", "/handler/forgot-password");
    const { app, calls } = fakeApi({
      "POST /auth/password/send-reset-code": () => ({
        body: { success: "maybe, only if user with e-mail exists" },
      }),
    });
    const page = await render(app, <ForgotPassword />);
    await click(button(page, "Send reset link"));
    expect(errorOf(field(page, "E-mail"))).toBe("This field is required.");
    await type(field(page, "E-mail"), "nope");
    await click(button(page, "Send reset link"));
    expect(errorOf(field(page, "E-mail"))).toBe("Enter a valid e-mail address.");
    await type(field(page, "E-mail"), "sam@example.com");
    await click(button(page, "Send reset link"));
    await findText(page, /If an account exists for sam@example.com/);
    expect(calls.at(-1)?.body).toEqual({
      email: "sam@example.com",
      callback_url: `${window.location.origin}/handler/password-reset`,
    });
  });
});

describe("PasswordReset", () => {
  it.each([
    ["VERIFICATION_CODE_NOT_FOUND", "This link is not valid."],
    ["VERIFICATION_CODE_EXPIRED", "This link has expired. Request a new one."],
    ["VERIFICATION_CODE_ALREADY_USED", "This link has already been used."],
  ])("explains a link whose code is %s", async (code, message) => {
    const { app } = fakeApi({ "POST /auth/password/reset/check-code": () => known(code) });
    const page = await render(app, <PasswordReset code={`${code.slice(-8)}${CODE}`.slice(0, 45)} />);
    await findText(page, message);
  });

  it("explains a link without a code", async () => {
    window.history.replaceState(null, "", "/handler/password-reset");
    const { app } = fakeApi();
    const page = await render(app, <PasswordReset />);
    await findText(page, /This link is incomplete/);
  });

  it("checks the new password, shows the server's refusal, and confirms the change", async () => {
    window.history.replaceState(null, "", `/handler/password-reset?code=${CODE}`);
    let attempts = 0;
    const { app, calls } = fakeApi({
      "POST /auth/password/reset/check-code": () => ({ body: { is_code_valid: true } }),
      "POST /auth/password/reset": () =>
        ++attempts === 1 ? known("PASSWORD_TOO_SHORT", { min_length: 14 }) : { body: { success: true } },
    });
    const page = await render(app, <PasswordReset />);
    await findText(page, "Choose a new password");
    await type(field(page, "New password"), "new password 1");
    await type(field(page, "Repeat password"), "new password 2");
    await click(button(page, "Reset password"));
    expect(errorOf(field(page, "Repeat password"))).toBe("Passwords do not match");
    await type(field(page, "Repeat password"), "new password 1");
    await click(button(page, "Reset password"));
    await waitFor(() => errorOf(field(page, "New password")) === "Use at least 14 characters.");
    await click(button(page, "Reset password"));
    await findText(page, "Password changed");
    expect(calls.filter((call) => call.route === "POST /auth/password/reset").at(-1)?.body).toEqual({
      code: CODE,
      password: "new password 1",
    });
  });

  it("shows a code spent meanwhile above the form", async () => {
    const { app } = fakeApi({
      "POST /auth/password/reset/check-code": () => ({ body: { is_code_valid: true } }),
      "POST /auth/password/reset": () => known("VERIFICATION_CODE_ALREADY_USED"),
    });
    const page = await render(app, <PasswordReset code={"d".repeat(45)} />);
    await findText(page, "Choose a new password");
    await type(field(page, "New password"), "new password 1");
    await type(field(page, "Repeat password"), "new password 1");
    await click(button(page, "Reset password"));
    await findText(page, "This link has already been used.");
    expect(page.querySelector('[role="alert"]')?.textContent).toContain("Send reset link");
  });
});
