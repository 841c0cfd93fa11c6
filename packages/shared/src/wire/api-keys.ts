/** User and team API keys (PROTOCOL.md §3.8) and the project's own key sets (§3.9). */

export type WireLastFour = { last_four: string };

type ApiKeyFields<V> = {
  id: string;
  description: string;
  expires_at_millis?: number | undefined;
  manually_revoked_at_millis?: number | undefined;
  created_at_millis: number;
  is_public: boolean;
  value: V;
};

export type WireUserApiKey<V = WireLastFour> = ApiKeyFields<V> & { type: "user"; user_id: string };
export type WireTeamApiKey<V = WireLastFour> = ApiKeyFields<V> & { type: "team"; team_id: string };
export type WireApiKey = WireUserApiKey | WireTeamApiKey;
/** The create answer: the only time the whole key is sent. */
export type WireApiKeyFirstView = WireUserApiKey<string> | WireTeamApiKey<string>;

export type WireInternalApiKey = {
  id: string;
  description: string;
  expires_at_millis: number | null;
  manually_revoked_at_millis?: number | undefined;
  created_at_millis: number;
  publishable_client_key?: WireLastFour | undefined;
  secret_server_key?: WireLastFour | undefined;
  super_secret_admin_key?: WireLastFour | undefined;
};

/** `POST /internal/api-keys`: the key strings in full, once. */
export type WireInternalApiKeyFirstView = Omit<
  WireInternalApiKey,
  "publishable_client_key" | "secret_server_key" | "super_secret_admin_key"
> & {
  publishable_client_key?: string | undefined;
  secret_server_key?: string | undefined;
  super_secret_admin_key?: string | undefined;
};
