/**
 * Overrides that new projects start with. The schema defaults say what an unset key means; these say what a newly
 * created project (and the seeded `internal` project) sets on top, at the project level.
 */
import type { ConfigOverride, JsonObject } from "./json.ts";
import type { OAuthProviderType } from "./schema.ts";

export const TEAM_MEMBER_PERMISSION_ID = "team_member";
export const TEAM_ADMIN_PERMISSION_ID = "team_admin";

/**
 * The project-level override of a freshly created project. Rendered, it gives the defaults of PROTOCOL §3.10:
 * password sign-in on, localhost allowed, the `team_member` and `team_admin` team permissions, team creators get
 * `team_admin`, team members get `team_member`, and sign-up grants nothing.
 */
export function newProjectOverride(): ConfigOverride {
  return {
    auth: { password: { allowSignIn: true } },
    domains: { allowLocalhost: true },
    rbac: {
      permissions: {
        [TEAM_MEMBER_PERMISSION_ID]: {
          description: "Default permission for team members",
          scope: "team",
          containedPermissionIds: { $read_members: true, $invite_members: true },
        },
        [TEAM_ADMIN_PERMISSION_ID]: {
          description: "Default permission for team admins",
          scope: "team",
          // Creators can do everything to their team; members can see and invite each other.
          containedPermissionIds: {
            $update_team: true,
            $delete_team: true,
            $read_members: true,
            $remove_members: true,
            $invite_members: true,
            $manage_api_keys: true,
          },
        },
      },
      defaultPermissions: {
        teamCreator: { [TEAM_ADMIN_PERMISSION_ID]: true },
        teamMember: { [TEAM_MEMBER_PERMISSION_ID]: true },
        signUp: {},
      },
    },
  };
}

/** Settings of the seeded `internal` project that deployments may change through the seed environment. */
export type InternalProjectSeedOptions = {
  /** Whether dashboard users may sign up (default true). */
  allowSignUp?: boolean;
  /** Whether one-time-code (magic link) sign-in is on (default true). */
  otpEnabled?: boolean;
  /** Whether localhost is a trusted origin (default true). */
  allowLocalhost?: boolean;
  /** OAuth providers to enable with shared keys (default none). */
  sharedOAuthProviders?: readonly OAuthProviderType[];
  /** The dashboard's public URL, added as a trusted domain. */
  dashboardUrl?: string;
};

/**
 * The project-level override of the seeded `internal` project (PROTOCOL §6): the new-project defaults plus a
 * personal team on sign-up, client-side team creation, no required email verification and OTP sign-in.
 */
export function internalProjectOverride(options: InternalProjectSeedOptions = {}): ConfigOverride {
  const override = newProjectOverride();
  const auth = override.auth as JsonObject;
  auth.allowSignUp = options.allowSignUp ?? true;
  auth.otp = { allowSignIn: options.otpEnabled ?? true };
  override.domains = { allowLocalhost: options.allowLocalhost ?? true };
  override.teams = { createPersonalTeamOnSignUp: true, allowClientTeamCreation: true };
  override.onboarding = { requireEmailVerification: false };

  const providers: JsonObject = {};
  for (const type of options.sharedOAuthProviders ?? []) {
    providers[type] = { type, isShared: true, allowSignIn: true, allowConnectedAccounts: true };
  }
  if (Object.keys(providers).length > 0) auth.oauth = { providers };
  if (options.dashboardUrl !== undefined) {
    (override.domains as JsonObject).trustedDomains = {
      dashboard: { baseUrl: options.dashboardUrl, handlerPath: "/handler" },
    };
  }
  return override;
}
