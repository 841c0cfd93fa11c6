import { hash as bcryptHash } from "@node-rs/bcrypt";
import { eq } from "drizzle-orm";
import { decodeJwt } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyPassword } from "../../crypto/index.ts";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
import { TINY_PNG_DATA_URL } from "../../testing/images.ts";
import { expectPlainError } from "../../testing/known-errors.ts";
import { createSignedInUser } from "../../testing/users.ts";
import { contactChannels } from "../contact-channels/schema.ts";
import { getRenderedConfig } from "../projects/config-store.ts";
import { issueTokens } from "../sessions/service.ts";
import { asUser, channelsOf, insertTeam, sessionCount, userRow } from "./test-support.ts";

let server: TestServer;
let project: TestProject;
let other: TestProject;

beforeAll(async () => {
  server = await createTestServer();
  project = await server.createProject("User updates");
  other = await server.createProject("Another project");
});
afterAll(() => server.close());

const errorCode = (response: { headers: Headers }) => response.headers.get("x-stack-known-error");
const patchMe = (accessToken: string, body: unknown, accessType: "client" | "server" | "admin" = "client") =>
  server.request("/api/v1/users/me", {
    method: "PATCH",
    headers: asUser(project, accessToken, accessType),
    body,
  });
const patchUser = (userId: string, body: unknown, target: TestProject = project) =>
  server.request(`/api/v1/users/${userId}`, { method: "PATCH", headers: target.headers("server"), body });
const smallPng = TINY_PNG_DATA_URL;

describe("PATCH /users/me as a client", () => {
  it("writes every client field and answers with the client view", async () => {
    const { user, accessToken } = await createSignedInUser(server, project.id);
    const teamId = await insertTeam(server, project.id, [user.id]);
    const response = await patchMe(accessToken, {
      display_name: "New name",
      profile_image_url: smallPng,
      client_metadata: { theme: "dark", list: [1, 2, 3] },
      selected_team_id: teamId,
      otp_auth_enabled: true,
      passkey_auth_enabled: true,
      totp_secret_base64: Buffer.alloc(20, 1).toString("base64"),
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body).not.toHaveProperty("server_metadata");
    expect(response.body).toMatchObject({
      display_name: "New name",
      // Stored as a file and answered as its URL (PROTOCOL-EXTRA §6.7; images/uploads.test.ts reads it back).
      profile_image_url: expect.stringMatching(
        /^http:\/\/localhost:8102\/files\/user-profile-images\/.+\.png$/,
      ),
      client_metadata: { theme: "dark", list: [1, 2, 3] },
      selected_team_id: teamId,
      selected_team: { id: teamId },
      otp_auth_enabled: true,
      passkey_auth_enabled: true,
      requires_totp_mfa: true,
      auth_with_email: true,
    });

    const cleared = await patchMe(accessToken, {
      display_name: null,
      profile_image_url: null,
      client_metadata: null,
      selected_team_id: null,
      totp_secret_base64: null,
      otp_auth_enabled: false,
    });
    expect(cleared.body).toMatchObject({
      display_name: null,
      profile_image_url: null,
      client_metadata: null,
      selected_team_id: null,
      selected_team: null,
      requires_totp_mfa: false,
      otp_auth_enabled: false,
    });
    expect((await userRow(server, user.id))!.totpSecretEncrypted).toBeNull();
  });

  it("leaves everything as it was for an empty body", async () => {
    const { accessToken } = await createSignedInUser(server, project.id, { displayName: "Same" });
    const response = await patchMe(accessToken, {});
    expect(response.status).toBe(200);
    expect(response.body.display_name).toBe("Same");
  });

  it.each([
    ["server_metadata", { server_metadata: { x: 1 } }],
    ["client_read_only_metadata", { client_read_only_metadata: { x: 1 } }],
    ["primary_email_verified", { primary_email_verified: true }],
    ["primary_email_auth_enabled", { primary_email_auth_enabled: false }],
    ["password", { password: "a new password" }],
    ["password_hash", { password_hash: "$2b$04$abcdefghijklmnopqrstuuabcdefghijklmnopqrstuvwxyzabcde" }],
    ["is_anonymous", { is_anonymous: false }],
    ["restricted_by_admin", { restricted_by_admin: false }],
    ["country_code", { country_code: "US" }],
    ["risk_scores", { risk_scores: { sign_up: { bot: 0, free_trial_abuse: 0 } } }],
    ["an unknown field", { nickname: "x" }],
  ])("refuses %s from a client with SCHEMA_ERROR, changing nothing", async (_name, body) => {
    const { user, accessToken } = await createSignedInUser(server, project.id, { displayName: "Untouched" });
    const response = await patchMe(accessToken, { display_name: "Changed", ...body });
    expect(response.status).toBe(400);
    expect(errorCode(response)).toBe("SCHEMA_ERROR");
    expect(response.body.error).toContain("body contains unknown properties");
    expect((await userRow(server, user.id))!.displayName).toBe("Untouched");
  });

  it.each([
    ["an http URL", "https://example.com/me.png"],
    ["a non-image data URL", `data:text/html;base64,${Buffer.from("<script>").toString("base64")}`],
    ["an SVG data URL", `data:image/svg+xml;base64,${Buffer.from("<svg/>").toString("base64")}`],
    ["broken base64", "data:image/png;base64,abc"],
  ])("refuses %s as a client's profile image with the reference's plain 400", async (_name, url) => {
    const { accessToken } = await createSignedInUser(server, project.id);
    expectPlainError(
      await patchMe(accessToken, { profile_image_url: url }),
      400,
      "Invalid profile image URL",
    );
  });

  it("refuses an image over 1 MB as any field too long (SCHEMA_ERROR)", async () => {
    const { accessToken } = await createSignedInUser(server, project.id);
    const response = await patchMe(accessToken, {
      profile_image_url: `data:image/png;base64,${"A".repeat(1_000_000)}`,
    });
    expect(errorCode(response)).toBe("SCHEMA_ERROR");
  });

  it("refuses a team the user is not a member of, and an unknown team", async () => {
    const { accessToken } = await createSignedInUser(server, project.id);
    const { user: someoneElse } = await createSignedInUser(server, project.id);
    const teamId = await insertTeam(server, project.id, [someoneElse.id]);
    const notMember = await patchMe(accessToken, { selected_team_id: teamId });
    expect(notMember.status).toBe(404);
    expect(errorCode(notMember)).toBe("TEAM_MEMBERSHIP_NOT_FOUND");
    const unknown = await patchMe(accessToken, { selected_team_id: "7d1f6c2e-0b3a-4e5f-8a9b-0c1d2e3f4a5b" });
    expect(errorCode(unknown)).toBe("TEAM_NOT_FOUND");
    expect(errorCode(await patchMe(accessToken, { selected_team_id: "not-a-uuid" }))).toBe("SCHEMA_ERROR");
  });

  it("refuses metadata that is too large", async () => {
    const { accessToken } = await createSignedInUser(server, project.id);
    const response = await patchMe(accessToken, { client_metadata: { blob: "é".repeat(50_001) } });
    expect(response.status).toBe(400);
    expect(response.body.error).toContain("too large");
  });

  it("needs a user", async () => {
    const response = await server.request("/api/v1/users/me", {
      method: "PATCH",
      headers: project.headers("client"),
      body: { display_name: "x" },
    });
    expect(errorCode(response)).toBe("CANNOT_GET_OWN_USER_WITHOUT_USER");
  });

  it("shows a new display name in the name claim of the next refreshed access token", async () => {
    const { accessToken, refreshToken } = await createSignedInUser(server, project.id, {
      displayName: "Before",
    });
    expect(decodeJwt(accessToken).name).toBe("Before");
    await patchMe(accessToken, { display_name: "After" });
    const refreshed = await server.request("/api/v1/auth/sessions/current/refresh", {
      method: "POST",
      headers: project.headers("client", { "x-stack-refresh-token": refreshToken }),
    });
    expect(refreshed.status).toBe(200);
    expect(decodeJwt(refreshed.body.access_token).name).toBe("After");
  });
});

describe("primary email changes", () => {
  it("makes a new address the unverified primary email and keeps the old one as a non-primary channel", async () => {
    const { user, accessToken } = await createSignedInUser(server, project.id, {
      primaryEmail: "old@example.com",
      primaryEmailVerified: true,
    });
    const response = await patchMe(accessToken, { primary_email: "New@Example.com" });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ primary_email: "new@example.com", primary_email_verified: false });
    const channels = await channelsOf(server, project.id, user.id);
    expect(channels.map((c) => [c.value, c.isPrimary, c.isVerified, c.usedForAuth]).sort()).toEqual([
      ["new@example.com", true, false, true],
      ["old@example.com", false, true, true],
    ]);

    // Back to the old address: the existing channel is promoted with its verification.
    const back = await patchMe(accessToken, { primary_email: "old@example.com" });
    expect(back.body).toMatchObject({ primary_email: "old@example.com", primary_email_verified: true });
    expect(await channelsOf(server, project.id, user.id)).toHaveLength(2);

    // The same address again (any case) changes nothing.
    const same = await patchMe(accessToken, { primary_email: "OLD@example.com" });
    expect(same.body).toMatchObject({ primary_email: "old@example.com", primary_email_verified: true });
  });

  it("gives a user without an email one, and null removes the primary email without deleting the channel", async () => {
    const { user, accessToken } = await createSignedInUser(server, project.id);
    const set = await patchMe(accessToken, { primary_email: "fresh@example.com" });
    expect(set.body).toMatchObject({ primary_email: "fresh@example.com", primary_email_verified: false });
    const removed = await patchMe(accessToken, { primary_email: null });
    expect(removed.body.primary_email).toBeNull();
    const channels = await channelsOf(server, project.id, user.id);
    expect(channels.map((c) => [c.value, c.isPrimary])).toEqual([["fresh@example.com", false]]);
  });

  it("refuses another user's sign-in email with USER_EMAIL_ALREADY_EXISTS", async () => {
    await createSignedInUser(server, project.id, { primaryEmail: "owner@example.com" });
    const { user, accessToken } = await createSignedInUser(server, project.id, {
      primaryEmail: "mine@example.com",
    });
    const response = await patchMe(accessToken, { primary_email: "owner@example.com" });
    expect(response.status).toBe(409);
    expect(response.body).toMatchObject({
      code: "USER_EMAIL_ALREADY_EXISTS",
      details: { email: "owner@example.com" },
    });
    expect((await channelsOf(server, project.id, user.id)).map((c) => [c.value, c.isPrimary])).toEqual([
      ["mine@example.com", true],
    ]);
    // The same address in another project is someone else's business.
    const { accessToken: otherToken } = await createSignedInUser(server, other.id);
    const elsewhere = await server.request("/api/v1/users/me", {
      method: "PATCH",
      headers: asUser(other, otherToken),
      body: { primary_email: "owner@example.com" },
    });
    expect(elsewhere.status).toBe(200);
  });

  it("lets a server set verification and sign-in use of the primary email", async () => {
    const { user } = await createSignedInUser(server, project.id, { primaryEmail: "srv@example.com" });
    const verified = await patchUser(user.id, {
      primary_email_verified: true,
      primary_email_auth_enabled: false,
    });
    expect(verified.body).toMatchObject({ primary_email_verified: true, primary_email_auth_enabled: false });
    const changed = await patchUser(user.id, {
      primary_email: "srv2@example.com",
      primary_email_verified: true,
    });
    expect(changed.body).toMatchObject({
      primary_email: "srv2@example.com",
      primary_email_verified: true,
      primary_email_auth_enabled: false,
    });

    // Turning sign-in on for an address someone else signs in with is refused.
    await createSignedInUser(server, project.id, { primaryEmail: "shared@example.com" });
    const copy = await patchUser(user.id, {
      primary_email: "shared@example.com",
      primary_email_auth_enabled: false,
    });
    expect(copy.status).toBe(200);
    const enable = await patchUser(user.id, { primary_email_auth_enabled: true });
    expect(errorCode(enable)).toBe("USER_EMAIL_ALREADY_EXISTS");
    const [channel] = await server.deps.db
      .select()
      .from(contactChannels)
      .where(eq(contactChannels.value, "shared@example.com"))
      .orderBy(contactChannels.createdAt);
    expect(channel!.userId).not.toBe(user.id);

    const noEmail = await createSignedInUser(server, project.id);
    expect((await patchUser(noEmail.user.id, { primary_email_verified: true })).status).toBe(400);
  });
});

describe("PATCH /users/:user_id (server)", () => {
  it("writes the server fields and answers with the server view", async () => {
    const { user } = await createSignedInUser(server, project.id);
    const response = await patchUser(user.id, {
      client_read_only_metadata: { plan: "pro" },
      server_metadata: { stripe: "cus_1" },
      country_code: "de",
      risk_scores: { sign_up: { bot: 3, free_trial_abuse: 4 } },
      restricted_by_admin: true,
      restricted_by_admin_reason: "Chargebacks",
      restricted_by_admin_private_details: "ticket 42",
      profile_image_url: "https://example.com/p.png",
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toMatchObject({
      client_read_only_metadata: { plan: "pro" },
      server_metadata: { stripe: "cus_1" },
      country_code: "DE",
      risk_scores: { sign_up: { bot: 3, free_trial_abuse: 4 } },
      is_restricted: true,
      restricted_reason: { type: "restricted_by_administrator" },
      restricted_by_admin_reason: "Chargebacks",
      restricted_by_admin_private_details: "ticket 42",
      profile_image_url: "https://example.com/p.png",
    });

    // Lifting the restriction clears both reasons.
    const lifted = await patchUser(user.id, { restricted_by_admin: false });
    expect(lifted.body).toMatchObject({
      is_restricted: false,
      restricted_by_admin: false,
      restricted_by_admin_reason: null,
      restricted_by_admin_private_details: null,
    });
    const row = (await userRow(server, user.id))!;
    expect([row.restrictedByAdminReason, row.restrictedByAdminPrivateDetails]).toEqual([null, null]);

    const inconsistent = await patchUser(user.id, { restricted_by_admin_reason: "no flag" });
    expect(errorCode(inconsistent)).toBe("SCHEMA_ERROR");
  });

  it("sets and removes passwords, ending every session of the user", async () => {
    const { user } = await createSignedInUser(server, project.id, { primaryEmail: "pw@example.com" });
    const rendered = await getRenderedConfig(server.deps, project.id);
    await issueTokens(server.deps, project.id, user, rendered);
    expect(await sessionCount(server, user.id)).toBe(2);

    const tooShort = await patchUser(user.id, { password: "short" });
    expect(tooShort.body).toMatchObject({ code: "PASSWORD_TOO_SHORT", details: { min_length: 8 } });
    expect(await sessionCount(server, user.id)).toBe(2);

    const set = await patchUser(user.id, { password: "a long new password" });
    expect(set.body.has_password).toBe(true);
    expect(await sessionCount(server, user.id)).toBe(0);
    const row = (await userRow(server, user.id))!;
    expect((await verifyPassword(row.passwordHash!, "a long new password")).valid).toBe(true);

    await issueTokens(server.deps, project.id, user, rendered);
    const removed = await patchUser(user.id, { password: null });
    expect(removed.body.has_password).toBe(false);
    expect(await sessionCount(server, user.id)).toBe(0);
  });

  it("stores an imported bcrypt hash as given, and other updates keep sessions", async () => {
    const { user } = await createSignedInUser(server, project.id);
    expect((await patchUser(user.id, { display_name: "Kept" })).status).toBe(200);
    expect(await sessionCount(server, user.id)).toBe(1);

    const imported = await bcryptHash("legacy password", { cost: 4 });
    const response = await patchUser(user.id, { password_hash: imported });
    expect(response.body.has_password).toBe(true);
    expect((await userRow(server, user.id))!.passwordHash).toBe(imported);
    expect(await sessionCount(server, user.id)).toBe(0);
  });

  it("upgrades anonymous users but never makes a user anonymous", async () => {
    const { user } = await createSignedInUser(server, project.id, { isAnonymous: true });
    expect(errorCode(await patchUser(user.id, { is_anonymous: true }))).toBe("SCHEMA_ERROR");
    const upgraded = await patchUser(user.id, { is_anonymous: false, primary_email: "upgraded@example.com" });
    expect(upgraded.body).toMatchObject({
      is_anonymous: false,
      is_restricted: false,
      restricted_reason: null,
    });
  });

  it("accepts `me` with a server key and an access token, including server fields", async () => {
    const { user, accessToken } = await createSignedInUser(server, project.id);
    const response = await patchMe(accessToken, { server_metadata: { a: 1 } }, "server");
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id: user.id, server_metadata: { a: 1 } });
    const byPath = await server.request("/api/v1/users/me", {
      method: "PATCH",
      headers: asUser(project, accessToken, "admin"),
      body: { client_read_only_metadata: 2 },
    });
    expect(byPath.body.client_read_only_metadata).toBe(2);
  });

  it("answers USER_NOT_FOUND for unknown users and users of another project", async () => {
    const { user: foreign } = await createSignedInUser(server, other.id, { displayName: "Foreign" });
    for (const id of [foreign.id, "7d1f6c2e-0b3a-4e5f-8a9b-0c1d2e3f4a5b", "nope"]) {
      const response = await patchUser(id, { display_name: "Hijacked" });
      expect(response.status).toBe(404);
      expect(errorCode(response)).toBe("USER_NOT_FOUND");
    }
    expect((await userRow(server, foreign.id))!.displayName).toBe("Foreign");
  });

  it("reflects a required email verification in the restricted state", async () => {
    const strict = await server.createProject("Strict");
    await strict.configure({ "onboarding.requireEmailVerification": true });
    const { user } = await createSignedInUser(server, strict.id, { primaryEmail: "unverified@example.com" });
    const read = await server.request(`/api/v1/users/${user.id}`, { headers: strict.headers("server") });
    expect(read.body).toMatchObject({
      is_restricted: true,
      restricted_reason: { type: "email_not_verified" },
    });
    const verified = await patchUser(user.id, { primary_email_verified: true }, strict);
    expect(verified.body).toMatchObject({ is_restricted: false, restricted_reason: null });
  });
});
