import { describe, expect, it } from "vitest";
import { BUILT_IN_TEMPLATES } from "../email-rendering/built-in-templates.ts";
import { BUILT_IN_THEMES, DEFAULT_SELECTED_THEME_ID } from "../email-rendering/built-in-themes.ts";
import { newProjectOverride } from "./defaults.ts";
import { mergeOverrideOverride } from "./override.ts";
import { renderConfig, validateLevelOverride } from "./render.ts";
import { defaultRenderedConfig } from "./schema.ts";
import { problems, rendered } from "./test-support.ts";

describe("schema defaults", () => {
  it("renders every key with its default from empty overrides", () => {
    expect(rendered(renderConfig({}))).toEqual({
      auth: {
        allowSignUp: true,
        password: { allowSignIn: false },
        otp: { allowSignIn: false },
        passkey: { allowSignIn: false },
        oauth: { accountMergeStrategy: "link_method", providers: {} },
        signUpRules: {},
        signUpRulesDefaultAction: "allow",
      },
      domains: { allowLocalhost: true, trustedDomains: {} },
      teams: { createPersonalTeamOnSignUp: false, allowClientTeamCreation: false },
      users: { allowClientUserDeletion: false },
      onboarding: { requireEmailVerification: false },
      apiKeys: { enabled: { user: false, team: false } },
      rbac: { permissions: {}, defaultPermissions: { teamCreator: {}, teamMember: {}, signUp: {} } },
      emails: {
        server: { isShared: true, provider: "smtp" },
        // The built-in themes and templates are defaults (email-rendering/built-in-*.ts).
        selectedThemeId: DEFAULT_SELECTED_THEME_ID,
        themes: Object.fromEntries(
          BUILT_IN_THEMES.map((t) => [t.id, { displayName: t.displayName, tsxSource: t.tsxSource }]),
        ),
        templates: Object.fromEntries(
          BUILT_IN_TEMPLATES.map((t) => [t.id, { displayName: t.displayName, tsxSource: t.tsxSource }]),
        ),
      },
      project: { requirePublishableClientKey: false },
      apps: { installed: {} },
      payments: { blockNewPurchases: false, testMode: true, productLines: {}, products: {}, items: {} },
      dataVault: { stores: {} },
      gatehouse: { rateLimits: {}, developmentLoopbackRateLimitFactor: 100, signUpRiskHeuristics: false },
    });
    expect(defaultRenderedConfig()).toEqual(
      rendered(renderConfig({ project: {}, branch: {}, environment: {} })),
    );
  });

  it("fills defaults inside record entries", () => {
    const config = rendered(
      renderConfig({
        environment: {
          "auth.oauth.providers.google": { type: "google" },
          "domains.trustedDomains.main": { baseUrl: "https://app.example.com" },
          "rbac.permissions.reader": { scope: "project" },
        },
      }),
    );
    expect(config.auth.oauth.providers.google).toEqual({
      type: "google",
      isShared: true,
      allowSignIn: true,
      allowConnectedAccounts: true,
    });
    expect(config.domains.trustedDomains.main).toEqual({
      baseUrl: "https://app.example.com",
      handlerPath: "/handler",
    });
    expect(config.rbac.permissions.reader).toEqual({ scope: "project", containedPermissionIds: {} });
  });

  it("takes a provider's type from its key when the key is a provider id", () => {
    const config = rendered(
      renderConfig({ environment: { "auth.oauth.providers.spotify": { isShared: false } } }),
    );
    expect(config.auth.oauth.providers.spotify?.type).toBe("spotify");
    expect(problems(renderConfig({ environment: { "auth.oauth.providers.my-google": {} } }))).toEqual([
      'auth.oauth.providers.my-google.type (from the environment override): is required (one of "google", "github", "microsoft", "spotify", "facebook", "discord", "gitlab", "bitbucket", "linkedin", "apple", "x", "twitch", "custom_oidc")',
    ]);
  });
});

describe("renderConfig layering", () => {
  it("applies project, then branch, then environment", () => {
    const config = rendered(
      renderConfig({
        environment: { "auth.allowSignUp": true, "teams.allowClientTeamCreation": false },
        project: {
          "auth.allowSignUp": false,
          "teams.allowClientTeamCreation": true,
          "teams.createPersonalTeamOnSignUp": true,
          "users.allowClientUserDeletion": true,
        },
        branch: { "teams.allowClientTeamCreation": true, "users.allowClientUserDeletion": false },
      }),
    );
    expect(config.auth.allowSignUp).toBe(true); // environment wins over project
    expect(config.teams.allowClientTeamCreation).toBe(false); // environment wins over branch and project
    expect(config.teams.createPersonalTeamOnSignUp).toBe(true); // only the project sets it
    expect(config.users.allowClientUserDeletion).toBe(false); // branch wins over project
  });

  it("merges record entries across levels field by field", () => {
    const config = rendered(
      renderConfig({
        project: { "auth.oauth.providers.github": { type: "github", isShared: false, clientId: "id" } },
        environment: { "auth.oauth.providers.github.clientSecret": "secret" },
      }),
    );
    expect(config.auth.oauth.providers.github).toEqual({
      type: "github",
      isShared: false,
      clientId: "id",
      clientSecret: "secret",
      allowSignIn: true,
      allowConnectedAccounts: true,
    });
  });

  it("treats null as 'no value': defaults come back and record entries disappear", () => {
    const config = rendered(
      renderConfig({
        project: {
          "auth.allowSignUp": false,
          "auth.oauth.providers.google": { type: "google" },
          "auth.oauth.providers.github": { type: "github" },
          "emails.server": { isShared: false, host: "smtp.example.com", port: 587 },
        },
        environment: {
          "auth.allowSignUp": null,
          "auth.oauth.providers.google": null,
          "emails.server.port": null,
        },
      }),
    );
    expect(config.auth.allowSignUp).toBe(true);
    expect(Object.keys(config.auth.oauth.providers)).toEqual(["github"]);
    expect(config.emails.server).toEqual({ isShared: false, provider: "smtp", host: "smtp.example.com" });
    expect(rendered(renderConfig({ project: { teams: null, rbac: { permissions: null } } }))).toEqual(
      defaultRenderedConfig(),
    );
  });

  it("reports shape problems with the level they are in", () => {
    expect(
      problems(renderConfig({ branch: { "a..b": 1 }, environment: { x: 1, x_: { "y.z": 1, y: { z: 2 } } } })),
    ).toEqual([
      'branch override: invalid key "a..b": empty segment (check for a leading, trailing or doubled dot)',
      'environment override: key "x_.y.z" is given more than once (as {"x_": {"y.z": …}} and {"x_": {"y": {"z": …}}}); give each key only once',
    ]);
  });
});

describe("renderConfig problems", () => {
  it("rejects unknown keys with the full path, a suggestion and the known keys", () => {
    expect(problems(renderConfig({ project: { "teams.allowClientTeamCreaton": true } }))).toEqual([
      'teams.allowClientTeamCreaton (from the project override): unknown key; did you mean "teams.allowClientTeamCreation"? Known keys under teams: createPersonalTeamOnSignUp, allowClientTeamCreation',
    ]);
    expect(problems(renderConfig({ environment: { allowLocalhost: false } }))).toEqual([
      'allowLocalhost (from the environment override): unknown key; did you mean "domains.allowLocalhost"? Known keys at the top level: auth, domains, teams, users, onboarding, apiKeys, rbac, emails, project, apps, payments, dataVault, gatehouse',
    ]);
    expect(
      problems(renderConfig({ environment: { "auth.oauth.providers.google": { clientID: "x" } } }))[0],
    ).toMatch(
      /^auth\.oauth\.providers\.google\.clientID \(from the environment override\): unknown key; did you mean "auth\.oauth\.providers\.google\.clientId"\?/,
    );
    expect(problems(renderConfig({ branch: { webhooks: { endpoints: {} } } }))).toEqual([
      "webhooks (from the branch override): unknown key. Known keys at the top level: auth, domains, teams, users, onboarding, apiKeys, rbac, emails, project, apps, payments, dataVault, gatehouse",
    ]);
  });

  it("accepts any well-formed key under record-valued keys", () => {
    const config = rendered(
      renderConfig({
        environment: {
          "auth.signUpRules.block-spam": {
            condition: "email.endsWith('spam.test')",
            action: "reject",
            extra: [1],
          },
          "domains.trustedDomains.some:id$-_": { baseUrl: "https://*.example.com" },
        },
      }),
    );
    expect(config.auth.signUpRules["block-spam"]).toEqual({
      condition: "email.endsWith('spam.test')",
      action: "reject",
      extra: [1],
    });
    expect(config.domains.trustedDomains["some:id$-_"]?.baseUrl).toBe("https://*.example.com");
  });

  it("explains type errors in plain words", () => {
    expect(
      problems(
        renderConfig({
          project: { "auth.allowSignUp": "yes", teams: "all", "emails.server.port": 70000 },
          environment: {
            "auth.oauth.accountMergeStrategy": "merge",
            "emails.server.port": "587",
            "domains.trustedDomains.a": { baseUrl: "example.com", handlerPath: "handler" },
            "rbac.permissions.p": { scope: "org", containedPermissionIds: { q: false } },
          },
        }),
      ),
    ).toEqual([
      'auth.allowSignUp (from the project override): expected true or false, but got the string "yes"',
      'auth.oauth.accountMergeStrategy (from the environment override): must be one of "link_method", "raise_error", "allow_duplicates", but got the string "merge"',
      'domains.trustedDomains.a.baseUrl (from the environment override): must be a URL starting with http:// or https:// (wildcards such as https://*.example.com are allowed), but got the string "example.com"',
      'domains.trustedDomains.a.handlerPath (from the environment override): must be a path starting with "/", but got the string "handler"',
      'teams (from the project override): expected an object, but got the string "all"',
      'rbac.permissions.p.scope (from the environment override): must be one of "team", "project", but got the string "org"',
      "rbac.permissions.p.containedPermissionIds.q (from the environment override): must be true, but got false",
      'emails.server.port (from the environment override): expected a number, but got the string "587"',
    ]);
    expect(problems(renderConfig({ project: { "emails.server.port": 70000 } }))).toEqual([
      "emails.server.port (from the project override): must be at most 65535, but got the number 70000",
    ]);
  });

  it("rejects bad record ids", () => {
    expect(
      problems(
        renderConfig({
          project: {
            "rbac.permissions.$mine": { scope: "team" },
            "rbac.permissions.Upper": { scope: "team" },
            "emails.themes.not-a-uuid": { displayName: "T", tsxSource: "" },
          },
        }),
      ),
    ).toEqual([
      'rbac.permissions (from the project override): invalid id "$mine": permission ids may only contain lowercase letters, digits, "_" and ":" (the "$" prefix is reserved for system permissions)',
      'rbac.permissions (from the project override): invalid id "Upper": permission ids may only contain lowercase letters, digits, "_" and ":" (the "$" prefix is reserved for system permissions)',
      'emails.themes (from the project override): invalid id "not-a-uuid": ids here must be UUIDs',
    ]);
  });

  it("stores email themes and templates under uuid keys", () => {
    const id = "1df07ae6-abf3-4a40-83a5-a1a2cbe336ac";
    const config = rendered(
      renderConfig({
        environment: {
          [`emails.themes.${id}`]: { displayName: "Light", tsxSource: "export function EmailTheme() {}" },
          "emails.templates.a0172b5d-cff0-463b-83bb-85124697373a": {
            displayName: "Welcome",
            tsxSource: "x",
            themeId: id,
          },
          "emails.selectedThemeId": id,
        },
      }),
    );
    expect(config.emails.themes[id]?.displayName).toBe("Light");
    expect(config.emails.selectedThemeId).toBe(id);
  });

  it("checks permission references and default permission scopes", () => {
    expect(
      problems(
        renderConfig({
          project: newProjectOverride(),
          environment: {
            "rbac.permissions.editor": {
              scope: "team",
              containedPermissionIds: { viewer: true, $read_members: true, $nope: true },
            },
            "rbac.permissions.billing": { scope: "project" },
            "rbac.defaultPermissions.signUp": { team_admin: true, $update_team: true, billing: true },
            "rbac.defaultPermissions.teamMember.billing": true,
            "rbac.defaultPermissions.teamCreator.ghost": true,
          },
        }),
      ),
    ).toEqual([
      'rbac.permissions.editor.containedPermissionIds.viewer (from the environment override): permission "viewer" is not defined; define it under rbac.permissions or use a system permission ($update_team, $delete_team, $read_members, $remove_members, $invite_members, $manage_api_keys)',
      'rbac.permissions.editor.containedPermissionIds.$nope (from the environment override): "$nope" is not a system permission (system permissions: $update_team, $delete_team, $read_members, $remove_members, $invite_members, $manage_api_keys)',
      'rbac.defaultPermissions.teamCreator.ghost (from the environment override): permission "ghost" is not defined; define it under rbac.permissions or use a system permission ($update_team, $delete_team, $read_members, $remove_members, $invite_members, $manage_api_keys)',
      'rbac.defaultPermissions.teamMember.billing (from the environment override): "billing" is a project permission, but teamMember default permissions must be team permissions',
      'rbac.defaultPermissions.signUp.team_admin (from the environment override): "team_admin" is a team permission, but signUp default permissions must be project permissions',
      'rbac.defaultPermissions.signUp.$update_team (from the environment override): "$update_team" is a team permission, but signUp default permissions must be project permissions',
    ]);
  });

  it("lets a higher level break a reference made by a lower level, and says so", () => {
    expect(
      problems(
        renderConfig({ project: newProjectOverride(), environment: { "rbac.permissions.team_admin": null } }),
      ),
    ).toEqual([
      'rbac.defaultPermissions.teamCreator.team_admin (from the project override): permission "team_admin" is not defined; define it under rbac.permissions or use a system permission ($update_team, $delete_team, $read_members, $remove_members, $invite_members, $manage_api_keys)',
    ]);
  });
});

describe("validateLevelOverride", () => {
  const project = newProjectOverride();

  it("accepts an override that renders cleanly with the other levels", () => {
    expect(validateLevelOverride("environment", { "auth.otp.allowSignIn": true }, { project })).toEqual([]);
    // The level's current override in otherLevels is replaced by the proposed one.
    expect(validateLevelOverride("environment", {}, { project, environment: { bad: 1 } })).toEqual([]);
  });

  it("reports shape problems without a level prefix, then render problems", () => {
    expect(validateLevelOverride("branch", { "a..b": 1 }, {})).toEqual([
      'invalid key "a..b": empty segment (check for a leading, trailing or doubled dot)',
    ]);
    expect(validateLevelOverride("branch", "nope", {})).toEqual([
      'the config override must be a JSON object, but got the string "nope"',
    ]);
    expect(
      validateLevelOverride("environment", { "rbac.defaultPermissions.signUp.x": true }, { project }),
    ).toEqual([
      'rbac.defaultPermissions.signUp.x (from the environment override): permission "x" is not defined; define it under rbac.permissions or use a system permission ($update_team, $delete_team, $read_members, $remove_members, $invite_members, $manage_api_keys)',
    ]);
  });

  it("works with the result of a PATCH", () => {
    const current = { "auth.oauth.providers.github": { type: "github", isShared: false, clientId: "a" } };
    const next = mergeOverrideOverride(current, { "auth.oauth.providers.github.type": "githb" });
    expect(validateLevelOverride("environment", next, { project })).toEqual([
      'auth.oauth.providers.github.type (from the environment override): must be one of "google", "github", "microsoft", "spotify", "facebook", "discord", "gitlab", "bitbucket", "linkedin", "apple", "x", "twitch", "custom_oidc", but got the string "githb"',
    ]);
  });
});
