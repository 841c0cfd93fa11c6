import { describe, expect, it } from "vitest";
import { newProjectOverride } from "./defaults.ts";
import type { ConfigOverride } from "./json.ts";
import {
  type LegacyConfigUpdate,
  legacyConfigUpdateSchema,
  legacyConfigUpdateToOverride,
  parseLegacyConfigUpdate,
} from "./legacy-update.ts";
import { toLegacyConfigView } from "./legacy-view.ts";
import { mergeOverrideOverride, normalizeOverride, validateOverrideShape } from "./override.ts";
import { renderConfig } from "./render.ts";
import { NEW_PROJECT_LEGACY_SWITCHES, rendered } from "./test-support.ts";

/** Applies a legacy update the way the project endpoints do: a PATCH of the given level's override. */
function update(current: ConfigOverride, legacy: unknown): ConfigOverride {
  const parsed = legacyConfigUpdateSchema.parse(legacy);
  const patch = legacyConfigUpdateToOverride(parsed);
  expect(validateOverrideShape(patch)).toEqual([]);
  return mergeOverrideOverride(current, patch);
}

function view(project: ConfigOverride) {
  return toLegacyConfigView(rendered(renderConfig({ project })));
}

const THEME = "a0172b5d-cff0-463b-83bb-85124697373a";

describe("legacy update → override → render → legacy view", () => {
  it("round-trips every scalar field", () => {
    const legacy = {
      allow_localhost: false,
      sign_up_enabled: false,
      credential_enabled: false,
      magic_link_enabled: true,
      passkey_enabled: true,
      client_team_creation_enabled: true,
      client_user_deletion_enabled: true,
      allow_user_api_keys: true,
      allow_team_api_keys: true,
      create_team_on_sign_up: true,
      oauth_account_merge_strategy: "allow_duplicates",
      email_theme: THEME,
    } as const;
    const result = view(update(newProjectOverride(), legacy));
    expect(result).toMatchObject(legacy);
    // And back the other way.
    const reverted = view(
      update(update(newProjectOverride(), legacy), {
        ...NEW_PROJECT_LEGACY_SWITCHES,
        create_team_on_sign_up: false,
        oauth_account_merge_strategy: "raise_error",
      }),
    );
    expect(reverted).toMatchObject({
      ...NEW_PROJECT_LEGACY_SWITCHES,
      create_team_on_sign_up: false,
      oauth_account_merge_strategy: "raise_error",
      email_theme: THEME,
    });
  });

  it("maps require_email_verification to onboarding.requireEmailVerification", () => {
    const override = update(newProjectOverride(), { require_email_verification: true });
    expect(rendered(renderConfig({ project: override })).onboarding.requireEmailVerification).toBe(true);
    expect(legacyConfigUpdateToOverride({ require_email_verification: false })).toEqual({
      "onboarding.requireEmailVerification": false,
    });
  });

  it("round-trips shared and standard OAuth providers", () => {
    const providers = [
      {
        id: "apple",
        type: "standard",
        client_id: "apple-id",
        client_secret: "apple-secret",
        apple_bundle_ids: ["com.b.app", "com.a.app"],
      },
      {
        id: "facebook",
        type: "standard",
        client_id: "fb-id",
        client_secret: "fb-secret",
        facebook_config_id: "cfg",
      },
      { id: "github", type: "shared" },
      {
        id: "microsoft",
        type: "standard",
        client_id: "ms-id",
        client_secret: "ms-secret",
        microsoft_tenant_id: "tenant",
      },
    ];
    const result = view(update(newProjectOverride(), { oauth_providers: providers }));
    expect(result.oauth_providers).toStrictEqual([
      {
        provider_config_id: "apple",
        id: "apple",
        type: "standard",
        client_id: "apple-id",
        client_secret: "apple-secret",
        apple_bundle_ids: ["com.a.app", "com.b.app"],
      },
      {
        provider_config_id: "facebook",
        id: "facebook",
        type: "standard",
        client_id: "fb-id",
        client_secret: "fb-secret",
        facebook_config_id: "cfg",
      },
      { provider_config_id: "github", id: "github", type: "shared" },
      {
        provider_config_id: "microsoft",
        id: "microsoft",
        type: "standard",
        client_id: "ms-id",
        client_secret: "ms-secret",
        microsoft_tenant_id: "tenant",
      },
    ]);
    expect(result.enabled_oauth_providers).toEqual([
      { id: "apple" },
      { id: "facebook" },
      { id: "github" },
      { id: "microsoft" },
    ]);
  });

  it("replaces all OAuth providers, whichever way they were stored", () => {
    const current = {
      ...newProjectOverride(),
      "auth.oauth.providers.google": { type: "google" },
      "auth.oauth.providers.custom-gh": { type: "github", isShared: false, clientId: "x" },
      "auth.oauth.accountMergeStrategy": "raise_error",
    };
    const result = view(update(current, { oauth_providers: [{ id: "spotify", type: "shared" }] }));
    expect(result.oauth_providers).toEqual([
      { provider_config_id: "spotify", id: "spotify", type: "shared" },
    ]);
    expect(result.oauth_account_merge_strategy).toBe("raise_error");
    expect(view(update(current, { oauth_providers: [] })).oauth_providers).toEqual([]);
  });

  it("keeps disabled providers configured but not enabled, and honours provider_config_id", () => {
    const result = view(
      update(newProjectOverride(), {
        oauth_providers: [
          { id: "google", type: "shared", enabled: false },
          {
            id: "github",
            type: "standard",
            provider_config_id: "gh-main",
            client_id: "a",
            client_secret: "b",
          },
        ],
      }),
    );
    expect(result.oauth_providers.map((p) => p.provider_config_id)).toEqual(["gh-main", "google"]);
    expect(result.enabled_oauth_providers).toEqual([{ id: "github" }]);
  });

  it("round-trips domains with their handler paths and replaces the whole list", () => {
    const withDomains = update(newProjectOverride(), {
      domains: [
        { domain: "https://b.example.com", handler_path: "/auth/handler" },
        { domain: "https://a.example.com", handler_path: "/handler" },
        { domain: "http://*.preview.example.com" },
      ],
    });
    expect(view(withDomains).domains).toEqual([
      { domain: "http://*.preview.example.com", handler_path: "/handler" },
      { domain: "https://a.example.com", handler_path: "/handler" },
      { domain: "https://b.example.com", handler_path: "/auth/handler" },
    ]);
    const replaced = update(withDomains, {
      domains: [{ domain: "https://c.example.com", handler_path: "/h" }],
    });
    expect(view(replaced).domains).toEqual([{ domain: "https://c.example.com", handler_path: "/h" }]);
    expect(view(update(replaced, { domains: [] })).domains).toEqual([]);
  });

  it("gives domains stable ids", () => {
    const legacy: LegacyConfigUpdate = {
      domains: [
        { domain: "https://a.example.com", handler_path: "/handler" },
        { domain: "https://a.example.com", handler_path: "/other" },
      ],
    };
    const first = legacyConfigUpdateToOverride(legacy);
    expect(legacyConfigUpdateToOverride(legacy)).toEqual(first);
    const ids = Object.keys(first["domains.trustedDomains"] as object);
    expect(ids).toHaveLength(2);
    expect(ids[1]).toBe(`${ids[0]}-2`);
    expect(ids[0]).toMatch(/^domain-[0-9a-f]{12}$/);
    // The same domain gets the same id wherever it is in the list.
    const reordered = legacyConfigUpdateToOverride({
      domains: [{ domain: "https://z.example.com" }, legacy.domains![0]!],
    });
    expect(Object.keys(reordered["domains.trustedDomains"] as object)[1]).toBe(ids[0]);
  });

  it("round-trips shared and standard email servers", () => {
    const standard = {
      type: "standard",
      host: "smtp.example.com",
      port: 587,
      username: "mailer",
      password: "hunter2",
      sender_name: "Example",
      sender_email: "noreply@example.com",
    } as const;
    const withServer = update(newProjectOverride(), { email_config: standard });
    expect(view(withServer).email_config).toStrictEqual(standard);
    expect(rendered(renderConfig({ project: withServer })).emails.server.provider).toBe("smtp");
    const shared = update(withServer, { email_config: { type: "shared" } });
    expect(view(shared).email_config).toStrictEqual({ type: "shared" });
    // Going back to standard does not resurrect the old settings.
    expect(
      view(update(shared, { email_config: { type: "standard", host: "h" } })).email_config,
    ).toStrictEqual({
      type: "standard",
      host: "h",
    });
  });

  it("round-trips default permission lists", () => {
    const current = {
      ...newProjectOverride(),
      "rbac.permissions.viewer": { scope: "team" },
      "rbac.permissions.beta_user": { scope: "project" },
    };
    const result = view(
      update(current, {
        team_creator_default_permissions: [{ id: "team_admin" }, { id: "$delete_team" }],
        team_member_default_permissions: [{ id: "viewer" }, { id: "team_member" }],
        user_default_permissions: [{ id: "beta_user" }],
      }),
    );
    expect(result.team_creator_default_permissions).toEqual([{ id: "$delete_team" }, { id: "team_admin" }]);
    expect(result.team_member_default_permissions).toEqual([{ id: "team_member" }, { id: "viewer" }]);
    expect(result.user_default_permissions).toEqual([{ id: "beta_user" }]);
    expect(
      view(update(current, { team_creator_default_permissions: [] })).team_creator_default_permissions,
    ).toEqual([]);
  });

  it("removes default permissions the lower levels grant when written at the environment level", () => {
    const project = { ...newProjectOverride(), "rbac.permissions.viewer": { scope: "team" } };
    const environment = (legacy: LegacyConfigUpdate, current: ConfigOverride = {}) =>
      mergeOverrideOverride(current, legacyConfigUpdateToOverride(legacy, normalizeOverride(project)));
    const layered = (env: ConfigOverride) =>
      toLegacyConfigView(rendered(renderConfig({ project, environment: env })));

    const onlyViewer = environment({ team_creator_default_permissions: [{ id: "viewer" }] });
    expect(onlyViewer).toEqual({
      "rbac.defaultPermissions.teamCreator": { team_admin: null, viewer: true },
    });
    expect(layered(onlyViewer).team_creator_default_permissions).toEqual([{ id: "viewer" }]);
    // Listing an entry the project level already has keeps it, without a null.
    const kept = environment({ team_member_default_permissions: [{ id: "team_member" }, { id: "viewer" }] });
    expect(layered(kept).team_member_default_permissions).toEqual([{ id: "team_member" }, { id: "viewer" }]);
    // Back again: a later write replaces the earlier one, nulls included.
    const restored = environment({ team_creator_default_permissions: [{ id: "team_admin" }] }, onlyViewer);
    expect(layered(restored).team_creator_default_permissions).toEqual([{ id: "team_admin" }]);
    expect(
      layered(environment({ team_creator_default_permissions: [], team_member_default_permissions: [] })),
    ).toMatchObject({ team_creator_default_permissions: [], team_member_default_permissions: [] });
    // Without the lower levels the lists can only add (the old behaviour the second argument exists to fix).
    expect(legacyConfigUpdateToOverride({ user_default_permissions: [] })).toEqual({
      "rbac.defaultPermissions.signUp": {},
    });
  });

  it("replaces the domains, OAuth providers and email server of the lower levels as well", () => {
    const project = {
      ...newProjectOverride(),
      "domains.trustedDomains.old": { baseUrl: "https://old.example.com", handlerPath: "/handler" },
      "auth.oauth.providers.github": {
        type: "github",
        isShared: false,
        clientId: "id",
        clientSecret: "secret",
      },
      "auth.oauth.providers.discord": { type: "discord" },
      "emails.server": { isShared: false, host: "smtp.example.com", port: 25, password: "pw" },
    };
    const environment = mergeOverrideOverride(
      {},
      legacyConfigUpdateToOverride(
        {
          domains: [{ domain: "https://new.example.com" }],
          oauth_providers: [{ id: "github", type: "standard", client_id: "id" }],
          email_config: { type: "shared" },
        },
        normalizeOverride(project),
      ),
    );
    const result = toLegacyConfigView(rendered(renderConfig({ project, environment })));
    expect(result.domains).toEqual([{ domain: "https://new.example.com", handler_path: "/handler" }]);
    expect(result.oauth_providers).toEqual([
      { provider_config_id: "github", id: "github", type: "standard", client_id: "id" },
    ]);
    expect(result.email_config).toEqual({ type: "shared" });
  });

  it("produces dot-notation keys only for the fields given", () => {
    expect(legacyConfigUpdateToOverride({})).toEqual({});
    expect(legacyConfigUpdateToOverride({ magic_link_enabled: true, credential_enabled: false })).toEqual({
      "auth.otp.allowSignIn": true,
      "auth.password.allowSignIn": false,
    });
    expect(legacyConfigUpdateToOverride({ oauth_providers: [{ id: "google", type: "shared" }] })).toEqual({
      "auth.oauth.providers": {
        google: { type: "google", isShared: true, allowSignIn: true, allowConnectedAccounts: true },
      },
    });
  });
});

describe("parseLegacyConfigUpdate", () => {
  it("accepts a full update", () => {
    expect(
      parseLegacyConfigUpdate({
        sign_up_enabled: true,
        oauth_providers: [{ id: "google", type: "standard", client_id: "a", client_secret: null }],
        domains: [{ domain: "https://x.example.com", handler_path: "/handler" }],
        email_config: { type: "shared" },
        user_default_permissions: [],
      }).ok,
    ).toBe(true);
  });

  it("explains what is wrong", () => {
    const result = parseLegacyConfigUpdate({
      sign_up_enabled: "no",
      signup_enabled: true,
      oauth_providers: [
        { id: "google", type: "shared" },
        { id: "google", type: "standard" },
        { id: 7, type: "shared" },
      ],
      domains: [{ domain: "example.com" }],
      team_member_default_permissions: [{ id: "Admin" }],
      email_config: { type: "standard", port: "25" },
    });
    expect(result).toEqual({
      ok: false,
      problems: [
        'sign_up_enabled: expected true or false, but got the string "no"',
        "oauth_providers.2.id: expected a string, but got the number 7",
        'domains.0.domain: must be a URL starting with http:// or https:// (wildcards such as https://*.example.com are allowed), but got the string "example.com"',
        'email_config.port: expected a number, but got the string "25"',
        'team_member_default_permissions.0.id: permission ids may only contain lowercase letters, digits, "_" and ":", optionally after a leading "$", but got the string "Admin"',
        'signup_enabled: unknown key; did you mean "sign_up_enabled"? Known keys at the top level: sign_up_enabled, credential_enabled, magic_link_enabled, passkey_enabled, client_team_creation_enabled, client_user_deletion_enabled, allow_localhost, allow_user_api_keys, allow_team_api_keys, create_team_on_sign_up, require_email_verification, oauth_account_merge_strategy, oauth_providers, domains, email_config, email_theme, team_creator_default_permissions, team_member_default_permissions, user_default_permissions',
      ],
    });
  });

  it("reports duplicate providers", () => {
    const result = parseLegacyConfigUpdate({
      oauth_providers: [
        { id: "google", type: "shared" },
        { id: "google", type: "standard" },
      ],
    });
    expect(result).toEqual({
      ok: false,
      problems: ['oauth_providers.1: provider "google" is listed more than once'],
    });
  });
});
