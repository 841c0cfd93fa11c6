// @vitest-environment happy-dom

import { KnownError } from "@gatehouse/js";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { uniqueEmail } from "../../../js/src/testing/apps.ts";
import {
  createTestProject,
  type ScriptedReply,
  type TestProject,
  testServerForFile,
} from "../testing/gatehouse.ts";
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
import { SignUp } from "./sign-up.tsx";

const gatehouse = testServerForFile();
let project: TestProject;

beforeAll(async () => {
  project = await createTestProject(gatehouse());
});
beforeEach(() => window.history.replaceState(null, "", "/handler/sign-up"));

async function filled(
  values: { email: string; password: string; repeat: string },
  scripted?: Record<string, ScriptedReply>,
) {
  const client = await project.client(scripted ? { scripted } : {});
  const page = await render(client.app, <SignUp />);
  await findText(page, "Create your account");
  await type(field(page, "E-mail"), values.email);
  await type(field(page, "Password"), values.password);
  await type(field(page, "Repeat password"), values.repeat);
  await click(button(page, "Create account"));
  return { ...client, page };
}

describe("SignUp", () => {
  it("checks e-mail, password length and the repeat before sending", async () => {
    const { page, routesCalled } = await filled({ email: "x@", password: "short", repeat: "other" });
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
    const { page, routesCalled } = await filled({ email: "a@b.co", password: long, repeat: long });
    expect(errorOf(field(page, "Password"))).toBe("Use at most 70 characters.");
    expect(routesCalled()).not.toContain("POST /auth/password/sign-up");
  });

  it("shows the server's minimum length next to the password", async () => {
    const { page } = await filled(
      { email: "a@b.co", password: "only10char", repeat: "only10char" },
      // Scripted: the server's minimum (8) is the form's own, so a real server never asks for more than it checks.
      { "POST /auth/password/sign-up": () => new KnownError("PASSWORD_TOO_SHORT", { min_length: 12 }) },
    );
    await waitFor(() => errorOf(field(page, "Password")) === "Use at least 12 characters.");
  });

  it("shows an existing account next to the e-mail", async () => {
    const existing = await project.createUser();
    const { page } = await filled({
      email: existing.email,
      password: "long enough 1",
      repeat: "long enough 1",
    });
    await waitFor(() => errorOf(field(page, "E-mail")) === "An account with this e-mail already exists.");
  });

  it("signs up with a verification link to this site and goes to the after-sign-up page", async () => {
    const email = uniqueEmail("new");
    const { app, navigated, lastBody } = await filled({
      email,
      password: "long enough 1",
      repeat: "long enough 1",
    });
    await waitFor(() => navigated.includes("/"));
    expect(lastBody("POST /auth/password/sign-up")).toEqual({
      email,
      password: "long enough 1",
      verification_callback_url: `${window.location.origin}/handler/email-verification`,
    });
    const user = await app.getUser({ includeRestricted: true });
    expect(user?.primaryEmail).toBe(email);
    // The verification e-mail the server sent links back to this site's handler.
    const users = await project.server.listUsers({ query: email });
    expect(users[0]?.hasPassword).toBe(true);
  });

  it("says when the project takes no sign-ups", async () => {
    const closed = await createTestProject(gatehouse(), { signUpEnabled: false });
    const { app } = await closed.client();
    const page = await render(app, <SignUp />);
    await findText(page, "This project does not accept new sign-ups.");
    expect(page.querySelector("form")).toBeNull();
    expect(byText(page, "Sign in")).not.toBeNull();
  });
});
