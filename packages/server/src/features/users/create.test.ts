import { hash as bcryptHash } from "@node-rs/bcrypt";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyPassword } from "../../crypto/index.ts";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
import { expectPlainError } from "../../testing/known-errors.ts";
import { createSignedInUser } from "../../testing/users.ts";
import { users } from "./schema.ts";
import { insertTeam, SERVER_VIEW_KEYS, userRow } from "./test-support.ts";
import { decryptTotpSecret } from "./totp.ts";

let server: TestServer;
let project: TestProject;
let other: TestProject;

beforeAll(async () => {
  server = await createTestServer();
  project = await server.createProject("User creation");
  other = await server.createProject("Another project");
});
afterAll(() => server.close());

const create = (body: unknown, target: TestProject = project, accessType: "server" | "admin" = "server") =>
  server.request("/api/v1/users", { method: "POST", headers: target.headers(accessType), body });

const errorCode = (response: { headers: Headers }) => response.headers.get("x-stack-known-error");

const HASH_TEXT = "Invalid password hash. Make sure it's a supported algorithm in Modular Crypt Format.";
const BOTH_TEXT = "Cannot set both password and password_hash at the same time.";
const IMAGE_TEXT = "Invalid profile image URL";

describe("POST /users", () => {
  it("creates a user with defaults and answers 201 with the server view", async () => {
    const response = await create({});
    expect(response.status).toBe(201);
    expect(Object.keys(response.body).sort()).toEqual(SERVER_VIEW_KEYS);
    expect(response.body).toMatchObject({
      primary_email: null,
      primary_email_verified: false,
      primary_email_auth_enabled: false,
      display_name: null,
      has_password: false,
      is_anonymous: false,
      is_restricted: false,
      restricted_by_admin: false,
      client_metadata: null,
      server_metadata: null,
      oauth_providers: [],
      requires_totp_mfa: false,
    });
  });

  it("stores every server field", async () => {
    const totp = Buffer.alloc(20, 7).toString("base64");
    const response = await create(
      {
        primary_email: "  Full@Example.COM ",
        primary_email_verified: true,
        primary_email_auth_enabled: true,
        display_name: "Full User",
        profile_image_url: "https://cdn.example.com/a.png",
        client_metadata: { a: 1 },
        client_read_only_metadata: ["b"],
        server_metadata: "c",
        password: "correct horse",
        otp_auth_enabled: true,
        passkey_auth_enabled: true,
        totp_secret_base64: totp,
        restricted_by_admin: true,
        restricted_by_admin_reason: "Spam",
        restricted_by_admin_private_details: "rule 7",
        country_code: " ch ",
        risk_scores: { sign_up: { bot: 12, free_trial_abuse: 100 } },
        oauth_providers: [],
      },
      project,
      "admin",
    );
    expect(response.status, response.text).toBe(201);
    expect(response.body).toMatchObject({
      primary_email: "full@example.com",
      primary_email_verified: true,
      primary_email_auth_enabled: true,
      auth_with_email: true,
      display_name: "Full User",
      profile_image_url: "https://cdn.example.com/a.png",
      client_metadata: { a: 1 },
      client_read_only_metadata: ["b"],
      server_metadata: "c",
      has_password: true,
      otp_auth_enabled: true,
      passkey_auth_enabled: true,
      requires_totp_mfa: true,
      is_restricted: true,
      restricted_reason: { type: "restricted_by_administrator" },
      restricted_by_admin: true,
      restricted_by_admin_reason: "Spam",
      restricted_by_admin_private_details: "rule 7",
      country_code: "CH",
      risk_scores: { sign_up: { bot: 12, free_trial_abuse: 100 } },
    });
    const row = (await userRow(server, response.body.id))!;
    expect(row.passwordHash).toMatch(/^\$argon2id\$/);
    expect((await verifyPassword(row.passwordHash!, "correct horse")).valid).toBe(true);
    expect(row.totpSecretEncrypted).not.toContain(totp);
    expect(Buffer.from(decryptTotpSecret(server.deps.env, row.totpSecretEncrypted!))).toEqual(
      Buffer.alloc(20, 7),
    );
  });

  it("imports a bcrypt password hash exactly as given", async () => {
    const imported = await bcryptHash("old-system-password", { cost: 4 });
    const response = await create({ primary_email: "imported@example.com", password_hash: imported });
    expect(response.status).toBe(201);
    expect(response.body.has_password).toBe(true);
    const row = (await userRow(server, response.body.id))!;
    expect(row.passwordHash).toBe(imported);
    expect(await verifyPassword(row.passwordHash!, "old-system-password")).toEqual({
      valid: true,
      needsRehash: true,
    });
  });

  it("refuses passwords outside 8..70 characters with the password errors", async () => {
    const short = await create({ password: "1234567" });
    expect(short.status).toBe(400);
    expect(short.body).toMatchObject({ code: "PASSWORD_TOO_SHORT", details: { min_length: 8 } });
    const long = await create({ password: "x".repeat(71) });
    expect(long.status).toBe(400);
    expect(long.body).toMatchObject({ code: "PASSWORD_TOO_LONG", details: { maxLength: 70 } });
    expect((await create({ password: "x".repeat(70) })).status).toBe(201);
  });

  it.each([
    ["an unknown field", { nickname: "x" }],
    ["a wrong type", { display_name: 5 }],
    ["an invalid email", { primary_email: "not-an-email" }],
    ["an empty email", { primary_email: "" }],
    ["a reason without restricted_by_admin", { restricted_by_admin_reason: "x" }],
    [
      "private details with restricted_by_admin false",
      { restricted_by_admin: false, restricted_by_admin_private_details: "x" },
    ],
    ["a 3-letter country code", { country_code: "USA" }],
    ["an unknown country code", { country_code: "XX" }],
    ["a risk score above 100", { risk_scores: { sign_up: { bot: 101, free_trial_abuse: 0 } } }],
    ["a fractional risk score", { risk_scores: { sign_up: { bot: 1.5, free_trial_abuse: 0 } } }],
    ["a TOTP secret that is not base64", { totp_secret_base64: "not base64!" }],
    ["a TOTP secret that is too short", { totp_secret_base64: Buffer.alloc(8).toString("base64") }],
    ["a display name with a NUL", { display_name: "a\u0000b" }],
    ["a display name over 256 characters", { display_name: "x".repeat(257) }],
    ["is_anonymous as a string", { is_anonymous: "yes" }],
  ])("refuses %s with SCHEMA_ERROR", async (_name, body) => {
    const response = await create(body);
    expect(response.status).toBe(400);
    expect(errorCode(response)).toBe("SCHEMA_ERROR");
  });

  // The reference answers these from its handler, in plain text (PROTOCOL-EXTRA §8.7).
  it.each([
    ["a password hash that is not MCF", { password_hash: "plaintext" }, HASH_TEXT],
    ["a bcrypt hash with an absurd cost", { password_hash: `$2b$31$${"a".repeat(53)}` }, HASH_TEXT],
    ["password and password_hash together", { password: "abcdefgh", password_hash: "$2b$04$" }, BOTH_TEXT],
    ["a profile image with another scheme", { profile_image_url: "javascript:alert(1)" }, IMAGE_TEXT],
    ["a profile image URL with a NUL", { profile_image_url: "https://example.com/a\u0000.png" }, IMAGE_TEXT],
    ["an empty image data URL", { profile_image_url: "data:image/webp;base64," }, IMAGE_TEXT],
  ])("refuses %s with a plain 400", async (_name, body, text) => {
    expectPlainError(await create(body), 400, text);
  });

  it("still answers SCHEMA_ERROR when another field is wrong too, since the schema is checked first", async () => {
    const response = await create({ profile_image_url: "javascript:alert(1)", display_name: 5 });
    expect(errorCode(response)).toBe("SCHEMA_ERROR");
    expect(response.body.error).toContain("body.display_name");
    expect(response.body.error).not.toContain("profile image");
  });

  it("refuses metadata that is too large, too deep or not storable", async () => {
    const cases = [
      { client_metadata: { blob: "x".repeat(100_001) } },
      { server_metadata: JSON.parse(`${"[".repeat(100)}${"]".repeat(100)}`) },
      { client_read_only_metadata: { text: "a\u0000b" } },
      { client_metadata: { "\ud800": 1 } },
    ];
    for (const body of cases) {
      const response = await create(body);
      expect(response.status).toBe(400);
      expect(errorCode(response)).toBe("SCHEMA_ERROR");
    }
    const tooLarge = await create(cases[0]);
    expect(tooLarge.body.error).toContain("too large");
    expect((await create({ client_metadata: { blob: "x".repeat(99_000) } })).status).toBe(201);
  });

  it("attaches OAuth provider accounts of configured providers only", async () => {
    const unknown = await create({ oauth_providers: [{ id: "github", account_id: "1", email: null }] });
    expect(unknown.status).toBe(400);
    expect(errorCode(unknown)).toBe("OAUTH_PROVIDER_NOT_FOUND_OR_NOT_ENABLED");
    expect((await create({ oauth_providers: [] })).status).toBe(201);

    await project.configure({
      "auth.oauth.providers.github": {
        type: "github",
        isShared: true,
        allowSignIn: true,
        allowConnectedAccounts: true,
      },
    });
    const created = await create({
      oauth_providers: [{ id: "github", account_id: "gh-42", email: "gh@example.com" }],
    });
    expect(created.status).toBe(201);
    expect(created.body.oauth_providers).toEqual([
      { id: "github", account_id: "gh-42", email: "gh@example.com" },
    ]);
  });

  it("refuses an email another user signs in with, but not a non-auth copy of it", async () => {
    expect((await create({ primary_email: "taken@example.com" })).status).toBe(201);
    const again = await create({ primary_email: "TAKEN@example.com" });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({
      code: "USER_EMAIL_ALREADY_EXISTS",
      details: { email: "taken@example.com" },
    });
    const copy = await create({ primary_email: "taken@example.com", primary_email_auth_enabled: false });
    expect(copy.status).toBe(201);
    expect(copy.body.primary_email_auth_enabled).toBe(false);
    // Another project is another namespace.
    expect((await create({ primary_email: "taken@example.com" }, other)).status).toBe(201);
  });

  it("needs a primary email for primary_email_verified and primary_email_auth_enabled", async () => {
    const verified = await create({ primary_email_verified: true });
    expect(verified.status).toBe(400);
    // Said in words, without the wire's field names: the dashboard shows it as it is.
    expect(verified.text).toContain("A user without a primary email cannot have it marked verified");
    expect(verified.text).not.toMatch(/primary_email/);
    expect((await create({ primary_email_auth_enabled: true })).status).toBe(400);
    expect((await create({ primary_email_verified: false })).status).toBe(201);
  });

  it("creates anonymous users, who are restricted", async () => {
    const response = await create({ is_anonymous: true });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({
      is_anonymous: true,
      is_restricted: true,
      restricted_reason: { type: "anonymous" },
    });
  });

  it("accepts only a selected team the new user is a member of, and leaves nothing behind otherwise", async () => {
    const { user: someone } = await createSignedInUser(server, project.id);
    const teamId = await insertTeam(server, project.id, [someone.id]);
    const before = (await server.deps.db.select().from(users).where(eq(users.projectId, project.id))).length;

    const notMember = await create({ primary_email: "team@example.com", selected_team_id: teamId });
    expect(notMember.status).toBe(404);
    expect(errorCode(notMember)).toBe("TEAM_MEMBERSHIP_NOT_FOUND");
    const unknownTeam = await create({ selected_team_id: "7d1f6c2e-0b3a-4e5f-8a9b-0c1d2e3f4a5b" });
    expect(errorCode(unknownTeam)).toBe("TEAM_NOT_FOUND");
    const otherProjectTeam = await insertTeam(server, other.id, []);
    expect(errorCode(await create({ selected_team_id: otherProjectTeam }))).toBe("TEAM_NOT_FOUND");

    const after = (await server.deps.db.select().from(users).where(eq(users.projectId, project.id))).length;
    expect(after).toBe(before);
    // The email was not left claimed by a half-created user.
    expect((await create({ primary_email: "team@example.com" })).status).toBe(201);
  });

  it("creates no personal team even when the project gives one at sign-up (the reference's selected_team: null)", async () => {
    const withTeams = await server.createProject("Personal teams");
    await withTeams.configure({ "teams.createPersonalTeamOnSignUp": true });
    const response = await create({ display_name: "Ada" }, withTeams);
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ selected_team: null, selected_team_id: null });
  });
});
