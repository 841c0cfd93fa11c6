/**
 * The rules of an `auth.oauth.providers.<id>` entry that span fields: which fields belong to which provider type,
 * and which need the project's own OAuth app. Checked when a config is rendered, so a bad override is a plain 400
 * and never stored (config/schema.ts declares the fields themselves).
 */
import type { z } from "zod";

/**
 * The generic OpenID Connect provider ("any OpenID Connect provider"): its endpoints come from `issuerUrl` (or are
 * given one by one). The name is the reference platform's newer one for the same thing.
 */
export const CUSTOM_OIDC_PROVIDER_TYPE = "custom_oidc";

/** Apple team ids and key ids: 10 upper-case letters and digits. */
export const APPLE_ID_PATTERN = /^[A-Z0-9]{10}$/;

/** The text of a PKCS #8 PEM file, which is what Apple's `.p8` key download is. */
export const PKCS8_PEM = /^\s*-----BEGIN PRIVATE KEY-----[A-Za-z0-9+/=\s]+-----END PRIVATE KEY-----\s*$/;

/** RFC 6749 §3.3 scope tokens, separated by white space. */
export const OAUTH_SCOPE_LIST = /^\s*[\x21\x23-\x5B\x5D-\x7E]+(\s+[\x21\x23-\x5B\x5D-\x7E]+)*\s*$/;

/** An absolute http(s) URL without credentials or fragment. */
export function isOAuthEndpointUrl(value: string): boolean {
  if (value.includes("#")) return false;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  return (url.protocol === "https:" || url.protocol === "http:") && !url.username && !url.password;
}

const ENDPOINT_FIELDS = ["issuerUrl", "authorizationEndpoint", "tokenEndpoint", "userInfoEndpoint"] as const;
const APPLE_KEY_FIELDS = ["appleTeamId", "appleKeyId", "applePrivateKey"] as const;
const CUSTOM_OIDC_FIELDS = ["scope", "displayName"] as const;

type ProviderEntryFields = { type: string; isShared: boolean } & Partial<
  Record<
    | (typeof ENDPOINT_FIELDS)[number]
    | (typeof APPLE_KEY_FIELDS)[number]
    | (typeof CUSTOM_OIDC_FIELDS)[number],
    string
  >
>;

export function checkOAuthProviderEntry(entry: ProviderEntryFields, ctx: z.RefinementCtx): void {
  const issue = (field: string, message: string) => ctx.addIssue({ code: "custom", path: [field], message });
  const isCustom = entry.type === CUSTOM_OIDC_PROVIDER_TYPE;

  if (entry.isShared) {
    if (isCustom) {
      issue(
        "isShared",
        "the generic OpenID Connect provider has no shared keys: set isShared to false and give clientId and clientSecret",
      );
    }
    // Shared keys are an app registered at the real provider; they mean nothing at another server.
    for (const field of ENDPOINT_FIELDS) {
      if (entry[field] !== undefined) {
        issue(field, "can only be set with the project's own OAuth app (isShared: false)");
      }
    }
  }
  if (
    isCustom &&
    !entry.issuerUrl &&
    !(entry.authorizationEndpoint && entry.tokenEndpoint && entry.userInfoEndpoint)
  ) {
    issue(
      "issuerUrl",
      "the generic OpenID Connect provider needs issuerUrl, or all of authorizationEndpoint, tokenEndpoint and userInfoEndpoint",
    );
  }
  if (!isCustom) {
    for (const field of CUSTOM_OIDC_FIELDS) {
      if (entry[field] !== undefined) {
        issue(field, `is only for the generic OpenID Connect provider (type "${CUSTOM_OIDC_PROVIDER_TYPE}")`);
      }
    }
  }
  const appleKeys = APPLE_KEY_FIELDS.filter((field) => entry[field] !== undefined);
  if (appleKeys.length > 0 && entry.type !== "apple") {
    for (const field of appleKeys) issue(field, "is only for Apple");
  } else if (appleKeys.length > 0 && appleKeys.length < APPLE_KEY_FIELDS.length) {
    for (const field of APPLE_KEY_FIELDS.filter((f) => !appleKeys.includes(f))) {
      issue(field, "Apple's client secret needs all of appleTeamId, appleKeyId and applePrivateKey");
    }
  }
}
