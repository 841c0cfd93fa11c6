import type { WireAdminProject, WireClientProject, WireOnboardingStatus } from "@gatehouse/shared";
import { z } from "zod";
import { type RenderedConfig, toClientProjectConfig, toLegacyConfigView } from "../../config/index.ts";
import { wire } from "../../http/wire-schema.ts";
import type { ProjectRow } from "./schema.ts";

export const ONBOARDING_STATUSES = [
  "config_choice",
  "apps_selection",
  "auth_setup",
  "domain_setup",
  "email_theme_setup",
  "payments_setup",
  "welcome",
  "completed",
] as const;

const domainView = z.object({ domain: z.string(), handler_path: z.string() });

/** The on/off settings both config views carry, in the order both answer them (config/legacy-view.ts). */
const configSwitches = {
  sign_up_enabled: z.boolean(),
  credential_enabled: z.boolean(),
  magic_link_enabled: z.boolean(),
  passkey_enabled: z.boolean(),
  client_team_creation_enabled: z.boolean(),
  client_user_deletion_enabled: z.boolean(),
  allow_user_api_keys: z.boolean(),
  allow_team_api_keys: z.boolean(),
};

export const clientProjectSchema = wire<WireClientProject>()(
  z.object({
    id: z.string(),
    display_name: z.string(),
    config: z.object({
      ...configSwitches,
      allow_localhost: z.boolean(),
      enabled_oauth_providers: z.array(z.object({ id: z.string() })),
      domains: z.array(domainView),
    }),
  }),
);

const permissionRef = z.array(z.object({ id: z.string() }));

export const adminProjectSchema = wire<WireAdminProject>()(
  z.object({
    id: z.string(),
    display_name: z.string(),
    description: z.string(),
    logo_url: z.string().nullable(),
    logo_full_url: z.string().nullable(),
    logo_dark_mode_url: z.string().nullable(),
    logo_full_dark_mode_url: z.string().nullable(),
    created_at_millis: z.number(),
    is_production_mode: z.boolean(),
    is_development_environment: z.boolean(),
    owner_team_id: z.string().nullable(),
    onboarding_status: z.enum(ONBOARDING_STATUSES),
    onboarding_state: z.record(z.string(), z.unknown()).nullable(),
    config: z.object({
      allow_localhost: z.boolean(),
      ...configSwitches,
      oauth_providers: z.array(
        z.object({
          provider_config_id: z.string(),
          id: z.string(),
          type: z.enum(["shared", "standard"]),
          client_id: z.string().optional(),
          client_secret: z.string().optional(),
          facebook_config_id: z.string().optional(),
          microsoft_tenant_id: z.string().optional(),
          apple_bundle_ids: z.array(z.string()).optional(),
        }),
      ),
      enabled_oauth_providers: z.array(z.object({ id: z.string() })),
      domains: z.array(domainView),
      email_config: z.object({
        type: z.enum(["shared", "standard"]),
        host: z.string().optional(),
        port: z.number().optional(),
        username: z.string().optional(),
        password: z.string().optional(),
        sender_name: z.string().optional(),
        sender_email: z.string().optional(),
      }),
      // Always present: the rendered config falls back to the default theme (config/email-defaults.ts).
      email_theme: z.string(),
      create_team_on_sign_up: z.boolean(),
      team_creator_default_permissions: permissionRef,
      team_member_default_permissions: permissionRef,
      user_default_permissions: permissionRef,
      oauth_account_merge_strategy: z.enum(["link_method", "raise_error", "allow_duplicates"]),
    }),
  }),
);

export type AdminProjectView = WireAdminProject;

export function toClientProjectView(project: ProjectRow, config: RenderedConfig): WireClientProject {
  return { id: project.id, display_name: project.displayName, config: toClientProjectConfig(config) };
}

export function toAdminProjectView(
  project: ProjectRow,
  config: RenderedConfig,
  isDevelopment: boolean,
): WireAdminProject {
  // A rendered config always selects a theme (config/email-defaults.ts), so the legacy view always names one.
  const legacy = toLegacyConfigView(config);
  return {
    id: project.id,
    display_name: project.displayName,
    description: project.description,
    logo_url: project.logoUrl,
    logo_full_url: project.logoFullUrl,
    logo_dark_mode_url: project.logoDarkModeUrl,
    logo_full_dark_mode_url: project.logoFullDarkModeUrl,
    created_at_millis: project.createdAt.getTime(),
    is_production_mode: project.isProductionMode,
    is_development_environment: isDevelopment,
    owner_team_id: project.ownerTeamId,
    // The column is text; only the update schema's enum writes it.
    onboarding_status: project.onboardingStatus as WireOnboardingStatus,
    onboarding_state: null,
    config: { ...legacy, email_theme: legacy.email_theme! },
  };
}
