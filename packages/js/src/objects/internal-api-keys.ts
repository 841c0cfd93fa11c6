import type { WireInternalApiKey, WireInternalApiKeyFirstView, WireLastFour } from "@gatehouse/shared";
import { type KeyValidity, validity } from "./api-keys.ts";
import { call, type Scope, seg } from "./scope.ts";

// The project's own API keys (admin), apart from api-keys.ts (users' and teams' keys) so that a browser bundle does
// not carry them.

/** A project's own key set (PROTOCOL.md §3.9); the key strings only right after creation. */
export type InternalApiKey = KeyValidity & {
  readonly id: string;
  readonly description: string;
  readonly createdAt: Date;
  readonly publishableClientKey: { lastFour: string } | null;
  readonly secretServerKey: { lastFour: string } | null;
  readonly superSecretAdminKey: { lastFour: string } | null;
  revoke(): Promise<void>;
};

export type InternalApiKeyFirstView = Omit<
  InternalApiKey,
  "publishableClientKey" | "secretServerKey" | "superSecretAdminKey"
> & {
  readonly publishableClientKey?: string;
  readonly secretServerKey?: string;
  readonly superSecretAdminKey?: string;
};

export type InternalApiKeyCreateOptions = {
  description: string;
  expiresAt: Date;
  hasPublishableClientKey: boolean;
  hasSecretServerKey: boolean;
  hasSuperSecretAdminKey: boolean;
};

function lastFour(value: WireLastFour | null | undefined): { lastFour: string } | null {
  return value && typeof value.last_four === "string" ? { lastFour: value.last_four } : null;
}

/** A key set as read, or a new one whose key strings the caller has taken out (nulls in their place). */
type InternalApiKeyJson = Omit<WireInternalApiKey, KeyField> & { [Field in KeyField]?: WireLastFour | null };
type KeyField = "publishable_client_key" | "secret_server_key" | "super_secret_admin_key";

export function internalApiKeyFromJson(scope: Scope, json: InternalApiKeyJson): InternalApiKey {
  return {
    ...validity(json, scope.ctx.runtime.now),
    id: json.id,
    description: json.description ?? "",
    createdAt: new Date(json.created_at_millis),
    publishableClientKey: lastFour(json.publishable_client_key),
    secretServerKey: lastFour(json.secret_server_key),
    superSecretAdminKey: lastFour(json.super_secret_admin_key),
    revoke: async () => {
      await call(scope, `/internal/api-keys/${seg(json.id)}`, { method: "PATCH", body: { revoked: true } });
      scope.ctx.invalidate("internalApiKeys");
    },
  };
}

export async function createInternalApiKey(
  scope: Scope,
  options: InternalApiKeyCreateOptions,
): Promise<InternalApiKeyFirstView> {
  const json = await call<WireInternalApiKeyFirstView>(scope, "/internal/api-keys", {
    method: "POST",
    body: {
      description: options.description,
      expires_at_millis: options.expiresAt.getTime(),
      has_publishable_client_key: options.hasPublishableClientKey,
      has_secret_server_key: options.hasSecretServerKey,
      has_super_secret_admin_key: options.hasSuperSecretAdminKey,
    },
  });
  scope.ctx.invalidate("internalApiKeys");
  const { publishableClientKey, secretServerKey, superSecretAdminKey, ...rest } = internalApiKeyFromJson(
    scope,
    { ...json, publishable_client_key: null, secret_server_key: null, super_secret_admin_key: null },
  );
  return {
    ...rest,
    ...(typeof json.publishable_client_key === "string"
      ? { publishableClientKey: json.publishable_client_key }
      : {}),
    ...(typeof json.secret_server_key === "string" ? { secretServerKey: json.secret_server_key } : {}),
    ...(typeof json.super_secret_admin_key === "string"
      ? { superSecretAdminKey: json.super_secret_admin_key }
      : {}),
  };
}
