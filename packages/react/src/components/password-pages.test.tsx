// @vitest-environment happy-dom
import { KnownError } from "@gatehouse/js";
import { beforeAll, describe, expect, it } from "vitest";
import {
  createTestProject,
  type TestProject,
  type TestUser,
  testServerForFile,
} from "../testing/gatehouse.ts";
import { button, click, errorOf, field, findText, render, type, waitFor } from "../testing/render.tsx";
import { ForgotPassword, PasswordReset } from "./password-pages.tsx";

const gatehouse = testServerForFile();
let project: TestProject;

beforeAll(async () => {
  project = await createTestProject(gatehouse());
});

/** A user and the code of the reset link the server e-mailed them. */
async function resetLink(): Promise<{ user: TestUser; code: string }> {
  const user = await project.createUser();
  const { app } = await project.client();
  await app.sendForgotPasswordEmail(user.email);
  return { user, code: await project.latestEmailCode(user.email) };
}

async function signsIn(email: string, password: string): Promise<boolean> {
  const { app } = await project.client();
  return (await app.signInWithCredential({ email, password, noRedirect: true })).status === "ok";
}

describe("ForgotPassword", () => {
  it("checks the e-mail, then confirms without saying whether the account exists", async () => {
    window.history.replaceState(null, "", "/handler/forgot-password");
    const user = await project.createUser();
    const { app, lastBody } = await project.client();
    const page = await render(app, <ForgotPassword />);
    await click(button(page, "Send reset link"));
    expect(errorOf(field(page, "E-mail"))).toBe("This field is required.");
    await type(field(page, "E-mail"), "nope");
    await click(button(page, "Send reset link"));
    expect(errorOf(field(page, "E-mail"))).toBe("Enter a valid e-mail address.");
    await type(field(page, "E-mail"), user.email);
    await click(button(page, "Send reset link"));
    await findText(page, new RegExp(`If an account exists for ${user.email}`));
    expect(lastBody("POST /auth/password/send-reset-code")).toEqual({
      email: user.email,
      callback_url: `${window.location.origin}/handler/password-reset`,
    });
    // The e-mail went out, with a link to this site's reset page.
    expect(await project.latestEmailCode(user.email)).toMatch(/^[0-9a-z]{45}$/);
  });
});

describe("PasswordReset", () => {
  it("explains a link whose code is unknown", async () => {
    const { app } = await project.client();
    const page = await render(app, <PasswordReset code={"c".repeat(45)} />);
    await findText(page, "This link is not valid.");
  });

  it("explains a link that has expired", async () => {
    const { code } = await resetLink();
    await project.expireCodes();
    const { app } = await project.client();
    const page = await render(app, <PasswordReset code={code} />);
    await findText(page, "This link has expired. Request a new one.");
  });

  it("explains a link that was used", async () => {
    const { code } = await resetLink();
    const { app } = await project.client();
    await app.resetPassword({ code, password: "first new password" });
    const page = await render(app, <PasswordReset code={code} />);
    await findText(page, "This link has already been used.");
  });

  it("explains a link without a code", async () => {
    window.history.replaceState(null, "", "/handler/password-reset");
    const { app, routesCalled } = await project.client();
    const page = await render(app, <PasswordReset />);
    await findText(page, /This link is incomplete/);
    expect(routesCalled()).toEqual([]);
  });

  it("checks the new password, shows the server's refusal, and confirms the change", async () => {
    const { user, code } = await resetLink();
    window.history.replaceState(null, "", `/handler/password-reset?code=${code}`);
    let attempts = 0;
    const { app, lastBody } = await project.client({
      scripted: {
        // Scripted once: the server's minimum (8) is the form's own, so a real server never refuses a password
        // the form let through. The second attempt goes to the server.
        "POST /auth/password/reset": () =>
          ++attempts === 1 ? new KnownError("PASSWORD_TOO_SHORT", { min_length: 14 }) : null,
      },
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
    expect(lastBody("POST /auth/password/reset")).toEqual({ code, password: "new password 1" });
    expect(await signsIn(user.email, "new password 1")).toBe(true);
    expect(await signsIn(user.email, user.password)).toBe(false);
  });

  it("shows a code spent meanwhile above the form", async () => {
    const { user, code } = await resetLink();
    const { app } = await project.client();
    const page = await render(app, <PasswordReset code={code} />);
    await findText(page, "Choose a new password");
    // The same link, used in another tab while this one was open.
    await (await project.client()).app.resetPassword({ code, password: "other tab password" });
    await type(field(page, "New password"), "new password 1");
    await type(field(page, "Repeat password"), "new password 1");
    await click(button(page, "Reset password"));
    await findText(page, "This link has already been used.");
    expect(page.querySelector('[role="alert"]')?.textContent).toContain("Send reset link");
    expect(await signsIn(user.email, "other tab password")).toBe(true);
  });
});
