// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { base32, totpAt } from "../../internal/totp.ts";
import { fakeApi, type Handler, known, userJson } from "../../testing/fake-api.ts";
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

const LISTS: Record<string, Handler> = {
  "GET /contact-channels": () => ({
    body: {
      items: [
        {
          id: "c1",
          user_id: "me",
          value: "sam@example.com",
          type: "email",
          is_primary: true,
          is_verified: true,
          used_for_auth: true,
        },
      ],
      is_paginated: false,
    },
  }),
  "GET /auth/sessions": () => ({ body: { items: [], is_paginated: false } }),
  "GET /teams": () => ({ body: { items: [], is_paginated: false } }),
  "GET /emails/notification-preference/me": () => ({ body: { items: [] } }),
  "GET /user-api-keys": () => ({ body: { items: [], is_paginated: false } }),
};

beforeEach(() => window.history.replaceState(null, "", "/handler/account-settings"));
afterEach(cleanup);

async function settings(routes: Record<string, Handler> = {}, project: Record<string, unknown> = {}) {
  const api = fakeApi({ ...LISTS, ...routes }, { signedIn: true, project });
  const page = await render(api.app, <AccountSettings />);
  await findText(page, "sam@example.com");
  return { ...api, page };
}

function sectionOf(page: HTMLElement, title: string): HTMLElement {
  const heading = [...page.querySelectorAll("h2")].find((h) => h.textContent === title);
  if (!heading) throw new Error(`No section ${title}`);
  return heading.closest("section")!;
}

describe("AccountSettings", () => {
  it("asks for every list at once instead of one section after another", async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const held =
      (handler: Handler): Handler =>
      async (body, url) => {
        await gate;
        return handler(body, url);
      };
    const { app, routesCalled } = fakeApi(
      Object.fromEntries(Object.entries(LISTS).map(([route, handler]) => [route, held(handler)])),
      { signedIn: true, project: { allow_user_api_keys: true } },
    );
    const page = await render(app, <AccountSettings />);
    await waitFor(() => routesCalled().filter((route) => route in LISTS).length === 5, "all list requests");
    release();
    await findText(page, "sam@example.com");
  });

  it("shows API keys and account deletion only when the project enables them", async () => {
    const off = await settings();
    expect(byText(off.page, "API keys")).toBeNull();
    expect(byText(off.page, "Delete my account")).toBeNull();
    await cleanup();
    const on = await settings({}, { allow_user_api_keys: true, client_user_deletion_enabled: true });
    await findText(on.page, "Create API key");
    expect(byText(on.page, "Delete my account")).not.toBeNull();
  });

  it("changes the password, with its errors next to the fields", async () => {
    let attempts = 0;
    const { page, calls } = await settings({
      "POST /auth/password/update": () =>
        ++attempts === 1 ? known("PASSWORD_CONFIRMATION_MISMATCH") : { body: { success: true } },
    });
    const security = sectionOf(page, "Security");
    await click(button(security, "Change password"));
    await type(field(security, "Current password"), "old one");
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
    await click(button(security, "Change password"));
    await findText(security, "Your password has been changed.");
    expect(calls.filter((call) => call.route === "POST /auth/password/update").at(-1)?.body).toEqual({
      old_password: "old one",
      new_password: "a new password",
    });
  });

  it("sets a first password for a user without one", async () => {
    const api = fakeApi(
      { ...LISTS, "POST /auth/password/set": () => ({ body: { success: true } }) },
      { signedIn: true, user: { has_password: false } },
    );
    const page = await render(api.app, <AccountSettings />);
    const security = await waitFor(() => sectionOf(page, "Security"));
    await click(button(security, "Set password"));
    expect(() => field(security, "Current password")).toThrow();
    await type(field(security, "New password"), "first password");
    await type(field(security, "Repeat password"), "first password");
    await click(button(security, "Set password"));
    await findText(security, "Your password has been changed.");
  });

  it("checks a new e-mail and shows an address another account uses", async () => {
    const { page } = await settings({
      "POST /contact-channels": () =>
        known("CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE", {
          type: "email",
          contact_channel_value: "x@y.co",
        }),
    });
    const emails = sectionOf(page, "E-mails");
    await type(field(emails, "New e-mail address"), "nope");
    await click(button(emails, "Add e-mail"));
    expect(errorOf(field(emails, "New e-mail address"))).toBe("Enter a valid e-mail address.");
    await type(field(emails, "New e-mail address"), "x@y.co");
    await click(button(emails, "Add e-mail"));
    await waitFor(
      () =>
        errorOf(field(emails, "New e-mail address")) === "This e-mail is already used by another account.",
    );
  });

  it("turns on two-factor authentication only with a right code from the app", async () => {
    const { page, calls } = await settings({
      "PATCH /users/me": () => ({ body: userJson({ requires_totp_mfa: true }) }),
    });
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
    expect(calls.some((call) => call.route === "PATCH /users/me")).toBe(false);

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
    await waitFor(() => calls.some((call) => call.route === "PATCH /users/me"));
    const sent = calls.find((call) => call.route === "PATCH /users/me")!.body.totp_secret_base64;
    expect(Buffer.from(sent, "base64")).toEqual(Buffer.from(secret));
  });

  it("creates API keys only with a description, and deletes the account only after the typed word", async () => {
    const { page } = await settings({}, { allow_user_api_keys: true, client_user_deletion_enabled: true });
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
    const { page } = await settings({}, { client_team_creation_enabled: true });
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
