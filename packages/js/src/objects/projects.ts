import type { WireClientProject, WireClientProjectConfig } from "@gatehouse/shared";

/** What clients see of the project (PROTOCOL.md §3.10). */
export type ProjectConfig = {
  readonly signUpEnabled: boolean;
  readonly credentialEnabled: boolean;
  readonly magicLinkEnabled: boolean;
  readonly passkeyEnabled: boolean;
  readonly clientTeamCreationEnabled: boolean;
  readonly clientUserDeletionEnabled: boolean;
  readonly allowUserApiKeys: boolean;
  readonly allowTeamApiKeys: boolean;
  readonly oauthProviders: readonly { id: string }[];
};

export type Project = { readonly id: string; readonly displayName: string; readonly config: ProjectConfig };

export function projectFromJson(json: WireClientProject): Project {
  return { id: json.id, displayName: json.display_name, config: clientConfigFromJson(json.config ?? {}) };
}

/** The config fields clients see; the admin read's legacy config has them too. */
export function clientConfigFromJson(config: Partial<WireClientProjectConfig>): Project["config"] {
  return {
    signUpEnabled: config.sign_up_enabled === true,
    credentialEnabled: config.credential_enabled === true,
    magicLinkEnabled: config.magic_link_enabled === true,
    passkeyEnabled: config.passkey_enabled === true,
    clientTeamCreationEnabled: config.client_team_creation_enabled === true,
    clientUserDeletionEnabled: config.client_user_deletion_enabled === true,
    allowUserApiKeys: config.allow_user_api_keys === true,
    allowTeamApiKeys: config.allow_team_api_keys === true,
    oauthProviders: (config.enabled_oauth_providers ?? []).map((p) => ({ id: p.id })),
  };
}
