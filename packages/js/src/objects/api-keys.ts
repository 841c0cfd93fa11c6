import type { WireApiKey, WireApiKeyFirstView, WireList, WireUserApiKey } from "@gatehouse/shared";
import { call, dateOrNull, defined, type Scope, seg, withQuery } from "./scope.ts";

export type ApiKeyCreateOptions = { description: string; expiresAt: Date | null; isPublic?: boolean };
export type ApiKeyUpdateOptions = { description?: string; revoked?: true };

/** Why a key no longer works, or null while it does (SPEC.md §4, API key validity). */
export type ApiKeyInvalidReason = "expired" | "manually-revoked" | null;

export type KeyValidity = {
  readonly expiresAt: Date | null | undefined;
  readonly manuallyRevokedAt: Date | null;
  isValid(): boolean;
  whyInvalid(): ApiKeyInvalidReason;
};

/** A user's or team's API key (PROTOCOL.md §3.8). `value` is the full key only right after creation. */
export type ApiKey = KeyValidity & {
  readonly id: string;
  readonly description: string;
  readonly createdAt: Date;
  readonly isPublic: boolean;
  readonly type: "user" | "team";
  readonly userId?: string;
  readonly teamId?: string;
  readonly value: string | { lastFour: string };
  update(options: ApiKeyUpdateOptions): Promise<void>;
  revoke(): Promise<void>;
};

export function validity(
  json: { expires_at_millis?: number | null | undefined; manually_revoked_at_millis?: number | undefined },
  now: () => number,
): KeyValidity {
  const expiresAt = dateOrNull(json.expires_at_millis);
  const manuallyRevokedAt = dateOrNull(json.manually_revoked_at_millis);
  const whyInvalid = (): ApiKeyInvalidReason => {
    if (manuallyRevokedAt !== null) return "manually-revoked";
    if (expiresAt !== null && expiresAt.getTime() < now()) return "expired";
    return null;
  };
  return { expiresAt, manuallyRevokedAt, whyInvalid, isValid: () => whyInvalid() === null };
}

/** A user or team key (read, or just created); it names its owner with one of the two ids. */
type ApiKeyJson = (WireApiKey | WireApiKeyFirstView) & { user_id?: string; team_id?: string };

export function apiKeyFromJson(scope: Scope, json: ApiKeyJson): ApiKey {
  const type: "user" | "team" = json.type === "team" ? "team" : "user";
  const base = `/${type}-api-keys/${seg(json.id)}`;
  const update = async (options: ApiKeyUpdateOptions) => {
    await call(scope, base, { method: "PATCH", body: defined(options) });
  };
  return {
    ...validity(json, scope.ctx.runtime.now),
    id: json.id,
    description: json.description ?? "",
    createdAt: new Date(json.created_at_millis),
    isPublic: json.is_public === true,
    type,
    ...(json.user_id ? { userId: json.user_id } : {}),
    ...(json.team_id ? { teamId: json.team_id } : {}),
    value: typeof json.value === "string" ? json.value : { lastFour: json.value?.last_four ?? "" },
    update,
    revoke: () => update({ revoked: true }),
  };
}

export async function createApiKey(
  scope: Scope,
  owner: { type: "user" | "team"; ownerId: string },
  options: ApiKeyCreateOptions,
): Promise<ApiKey & { value: string }> {
  const json = await call<WireApiKeyFirstView>(scope, `/${owner.type}-api-keys`, {
    method: "POST",
    body: defined({
      description: options.description,
      expires_at_millis: options.expiresAt === null ? null : options.expiresAt.getTime(),
      is_public: options.isPublic,
      [owner.type === "user" ? "user_id" : "team_id"]: owner.ownerId,
    }),
  });
  return apiKeyFromJson(scope, json) as ApiKey & { value: string };
}

export async function listUserApiKeys(scope: Scope, userId: string): Promise<ApiKey[]> {
  const result = await call<WireList<WireUserApiKey>>(
    scope,
    withQuery("/user-api-keys", { user_id: userId }),
  );
  return result.items.map((item) => apiKeyFromJson(scope, item));
}
