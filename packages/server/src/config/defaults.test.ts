import { describe, expect, it } from "vitest";
import { internalProjectOverride, newProjectOverride } from "./defaults.ts";
import { toLegacyConfigView } from "./legacy-view.ts";
import { validateOverrideShape } from "./override.ts";
import { renderConfig } from "./render.ts";
import { NEW_PROJECT_LEGACY_SWITCHES, rendered } from "./test-support.ts";

const THEME = "1df07ae6-abf3-4a40-83a5-a1a2cbe336ac";

describe("newProjectOverride", () => {
  it("renders to exactly the PROTOCOL §3.10 defaults of a new project", () => {
    const config = rendered(renderConfig({ project: newProjectOverride() }));
    expect(toLegacyConfigView(config, { emailThemeDefault: THEME })).toStrictEqual({
      ...NEW_PROJECT_LEGACY_SWITCHES,
      oauth_providers: [],
      enabled_oauth_providers: [],
      domains: [],
      email_config: { type: "shared" },
      email_theme: THEME,
      create_team_on_sign_up: false,
      team_creator_default_permissions: [{ id: "team_admin" }],
      team_member_default_permissions: [{ id: "team_member" }],
      user_default_permissions: [],
      oauth_account_merge_strategy: "link_method",
    });
  });

  it("defines team_member and team_admin as team permissions over system permissions", () => {
    const config = rendered(renderConfig({ project: newProjectOverride() }));
    expect(config.rbac.permissions).toEqual({
      team_member: {
        description: "Default permission for team members",
        scope: "team",
        containedPermissionIds: { $read_members: true, $invite_members: true },
      },
      team_admin: {
        description: "Default permission for team admins",
        scope: "team",
        containedPermissionIds: {
          $update_team: true,
          $delete_team: true,
          $read_members: true,
          $remove_members: true,
          $invite_members: true,
          $manage_api_keys: true,
        },
      },
    });
    expect(config.rbac.defaultPermissions).toEqual({
      teamCreator: { team_admin: true },
      teamMember: { team_member: true },
      signUp: {},
    });
    expect(config.auth.password.allowSignIn).toBe(true);
    expect(config.project.requirePublishableClientKey).toBe(false);
  });

  it("is a valid override and a fresh object on every call", () => {
    expect(validateOverrideShape(newProjectOverride())).toEqual([]);
    const first = newProjectOverride();
    (first.auth as Record<string, unknown>).allowSignUp = false;
    expect(newProjectOverride().auth).toEqual({ password: { allowSignIn: true } });
  });
});

describe("internalProjectOverride", () => {
  it("adds personal teams, client team creation, OTP and no required email verification", () => {
    const config = rendered(renderConfig({ project: internalProjectOverride() }));
    expect(config.teams).toEqual({ createPersonalTeamOnSignUp: true, allowClientTeamCreation: true });
    expect(config.onboarding.requireEmailVerification).toBe(false);
    expect(config.auth.otp.allowSignIn).toBe(true);
    expect(config.auth.password.allowSignIn).toBe(true);
    expect(config.auth.allowSignUp).toBe(true);
    expect(config.domains.allowLocalhost).toBe(true);
    expect(config.rbac.defaultPermissions.teamCreator).toEqual({ team_admin: true });
    expect(Object.keys(config.rbac.permissions).sort()).toEqual(["team_admin", "team_member"]);
  });

  it("takes the seed settings", () => {
    const config = rendered(
      renderConfig({
        project: internalProjectOverride({
          allowSignUp: false,
          otpEnabled: false,
          allowLocalhost: false,
          sharedOAuthProviders: ["github", "google"],
          dashboardUrl: "https://dash.example.com",
        }),
      }),
    );
    expect(config.auth.allowSignUp).toBe(false);
    expect(config.auth.otp.allowSignIn).toBe(false);
    expect(config.domains.allowLocalhost).toBe(false);
    expect(config.domains.trustedDomains).toEqual({
      dashboard: { baseUrl: "https://dash.example.com", handlerPath: "/handler" },
    });
    expect(toLegacyConfigView(config).oauth_providers).toEqual([
      { provider_config_id: "github", id: "github", type: "shared" },
      { provider_config_id: "google", id: "google", type: "shared" },
    ]);
  });
});
