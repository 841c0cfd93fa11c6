// @vitest-environment happy-dom

import { gatehouseInternals, KnownError } from "@gatehouse/js";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { uniqueEmail } from "../../../../js/src/testing/apps.ts";
import { base32, totpAt } from "../../internal/totp.ts";
import {
  createTestProject,
  type ProjectSettings,
  type TestUser,
  testServerForFile,
} from "../../testing/gatehouse.ts";
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
} from "../../testing/render.tsx";
import { AccountSettings } from "./account-settings.tsx";

/** What the page lists, one request each. */
const LISTS = [
  "GET /contact-channels",
  "GET /auth/sessions",
  "GET /teams",
  "GET /emails/notification-preference/me",
  "GET /user-api-keys",
];

const gatehouse = testServerForFile();

beforeEach(() => window.history.replaceState(null, "", "/handler/account-settings"));

/** The settings page of a signed-in user of a fresh project with `settings`. */
async function settings(projectSettings: ProjectSettings = {}) {
  const project = await createTestProject(gatehouse(), projectSettings);
  const user = await project.createUser();
  const client = await project.client({ signedInAs: user });
  const page = await render(client.app, <AccountSettings />);
  await loaded(page, user.email);
  return { ...client, page, user, project };
}

/** The page once its sections have their data (each section loads on its own). */
async function loaded(page: HTMLElement, email: string) {
  await waitFor(() => {
    const emails = [...page.querySelectorAll("h2")].find((h) => h.textContent === "E-mails");
    return emails?.closest("section")?.textContent?.includes(email);
  }, "the e-mails section");
}

function sectionOf(page: HTMLElement, title: string): HTMLElement {
  const heading = [...page.querySelectorAll("h2")].find((h) => h.textContent === title);
  if (!heading) throw new Error(`No section ${title}`);
  return heading.closest("section")!;
}

describe("AccountSettings", () => {
  it("asks for every list at once instead of one section after another", async () => {
    const project = await createTestProject(gatehouse(), { allowUserApiKeys: true });
    const user: TestUser = await project.createUser();
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { app, routesCalled } = await project.client({
      signedInAs: user,
      beforeSending: (route) => (LISTS.includes(route) ? gate : Promise.resolve()),
    });
    const page = await render(app, <AccountSettings />);
    await waitFor(
      () => routesCalled().filter((route) => LISTS.includes(route)).length === 5,
      "all list requests",
    );
    release();
    await findText(page, user.email);
  });

  it("shows API keys and account deletion only when the project enables them", async () => {
    const off = await settings();
    expect(byText(off.page, "API keys")).toBeNull();
    expect(byText(off.page, "Delete my account")).toBeNull();
    await cleanup();
    const on = await settings({ allowUserApiKeys: true, clientUserDeletionEnabled: true });
    await findText(on.page, "Create API key");
    expect(byText(on.page, "Delete my account")).not.toBeNull();
  });

  it("changes the password, with its errors next to the fields", async () => {
    const { page, lastBody, user, project } = await settings();
    const security = sectionOf(page, "Security");
    await click(button(security, "Change password"));
    await type(field(security, "Current password"), "not the password");
    await type(field(security, "New password"), "short");
    await type(field(security, "Repeat password"), "shorter");
    await click(button(security, "Change password"));
    expect(errorOf(field(security, "New password"))).toBe("Use at least 8 characters.");
    expect(errorOf(field(security, "Repeat password"))).toBe("Passwords do not match");
    await type(field(security, "New password"), "a new password");
    await type(field(security, "Repeat password"), "a new password");
    await click(button(security, "Change password"));
    await waitFor(
      () => errorOf(field(security, "Current password")) === "The current password is not correct.",
    );
    await type(field(security, "Current password"), user.password);
    await click(button(security, "Change password"));
    await findText(security, "Your password has been changed.");
    expect(lastBody("POST /auth/password/update")).toEqual({
      old_password: user.password,
      new_password: "a new password",
    });
    const again = await project.client();
    const signedIn = await again.app.signInWithCredential({
      email: user.email,
      password: "a new password",
      noRedirect: true,
    });
    expect(signedIn.status).toBe("ok");
  });

  it("sets a first password for a user without one", async () => {
    const project = await createTestProject(gatehouse());
    const email = uniqueEmail("nopassword");
    const created = await project.server.createUser({
      primaryEmail: email,
      primaryEmailVerified: true,
      primaryEmailAuthEnabled: true,
    });
    const { app } = await project.client();
    await app[gatehouseInternals].signInWithTokens(
      await project.server.createSession({ userId: created.id }),
    );
    const page = await render(app, <AccountSettings />);
    const security = await waitFor(() => byText(page, email) && sectionOf(page, "Security"));
    await click(button(security, "Set password"));
    expect(() => field(security, "Current password")).toThrow();
    await type(field(security, "New password"), "first password");
    await type(field(security, "Repeat password"), "first password");
    await click(button(security, "Set password"));
    await findText(security, "Your password has been changed.");
    expect((await project.server.getUser(created.id))?.hasPassword).toBe(true);
  });

  it("checks a new e-mail, adds it and sends it a verification link", async () => {
    const { page, project, user } = await settings();
    const emails = sectionOf(page, "E-mails");
    await type(field(emails, "New e-mail address"), "nope");
    await click(button(emails, "Add e-mail"));
    expect(errorOf(field(emails, "New e-mail address"))).toBe("Enter a valid e-mail address.");
    const added = uniqueEmail("second");
    await type(field(emails, "New e-mail address"), added);
    await click(button(emails, "Add e-mail"));
    await findText(emails, "Verification e-mail sent.");
    await findText(emails, added);
    expect(await project.latestEmailCode(added)).toMatch(/^[0-9a-z]{45}$/);
    const channels = await (await project.server.getUser(user.id))!.listContactChannels();
    expect(channels.map((channel) => channel.value).sort()).toEqual([user.email, added].sort());
  });

  it("shows an address another account uses next to the new e-mail", async () => {
    const project = await createTestProject(gatehouse());
    const user = await project.createUser();
    const { app } = await project.client({
      signedInAs: user,
      scripted: {
        // Scripted: the page adds addresses as not used for sign-in, which our server accepts even when another
        // account signs in with them; the protocol allows this refusal, and the page must place it.
        "POST /contact-channels": () =>
          new KnownError("CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE", {
            type: "email",
            contact_channel_value: "x@y.co",
          }),
      },
    });
    const page = await render(app, <AccountSettings />);
    await loaded(page, user.email);
    const emails = sectionOf(page, "E-mails");
    await type(field(emails, "New e-mail address"), "x@y.co");
    await click(button(emails, "Add e-mail"));
    await waitFor(
      () =>
        errorOf(field(emails, "New e-mail address")) === "This e-mail is already used by another account.",
    );
  });

  it("turns on two-factor authentication only with a right code from the app", async () => {
    const { page, routesCalled, lastBody, user, project } = await settings();
    const security = sectionOf(page, "Security");
    await click(button(security, "Turn on"));
    const qr = await waitFor(() => security.querySelector<HTMLImageElement>("img"), "QR code");
    expect(qr.alt).toBe("QR code to set up two-factor authentication");
    expect(qr.src.startsWith("data:image/png;base64,")).toBe(true);
    const secretText = security.querySelector('[data-testid="totp-secret"]')!.textContent!;

    await type(field(security, "Authentication code"), "12");
    await click(button(security, "Confirm and turn on"));
    await waitFor(
      () =>
        errorOf(field(security, "Authentication code")) ===
        "Enter the 6 digits shown in your authenticator app.",
    );
    expect(routesCalled()).not.toContain("PATCH /users/me");

    // Find the secret's bytes again from what the page shows, as an authenticator app would.
    const secret = decode(secretText);
    expect(base32(secret)).toBe(secretText);
    const now = await totpAt(secret, Math.floor(Date.now() / 30_000));
    const wrong = now === "000000" ? "111111" : "000000";
    await type(field(security, "Authentication code"), wrong);
    await click(button(security, "Confirm and turn on"));
    await waitFor(() =>
      errorOf(field(security, "Authentication code"))?.startsWith("That code is not right"),
    );
    await type(field(security, "Authentication code"), now);
    await click(button(security, "Confirm and turn on"));
    await waitFor(() => routesCalled().includes("PATCH /users/me"));
    const sent = lastBody("PATCH /users/me").totp_secret_base64;
    expect(Buffer.from(sent, "base64")).toEqual(Buffer.from(secret));
    await vi.waitFor(async () =>
      expect((await project.server.getUser(user.id))?.isMultiFactorRequired).toBe(true),
    );
  });

  it("creates API keys only with a description, and deletes the account only after the typed word", async () => {
    const { page } = await settings({ allowUserApiKeys: true, clientUserDeletionEnabled: true });
    const keys = sectionOf(page, "API keys");
    await click(button(keys, "Create API key"));
    expect(errorOf(field(keys, "Description"))).toBe("This field is required.");
    const danger = sectionOf(page, "Delete account");
    await click(button(danger, "Delete my account"));
    await type(field(danger, "Type DELETE to confirm"), "delete");
    await click(button(danger, "Delete my account"));
    expect(errorOf(field(danger, "Type DELETE to confirm"))).toBe("Type DELETE to confirm");
  });

  it("creates a team only with a name", async () => {
    const { page } = await settings({ clientTeamCreationEnabled: true });
    const teams = sectionOf(page, "Teams");
    await click(button(teams, "Create a team"));
    await click(button(teams, "Create a team"));
    expect(errorOf(field(teams, "Team name"))).toBe("This field is required.");
  });
});

function decode(text: string): Uint8Array {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  let bits = 0;
  let value = 0;
  const out: number[] = [];
  for (const char of text) {
    value = (value << 5) | alphabet.indexOf(char);
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return new Uint8Array(out);
}
