/**
 * The OAuth providers Gatehouse knows (PROTOCOL.md §3.10): where each one's endpoints are, which scopes a sign-in
 * asks for, how it wants the client to authenticate, and how its user API maps onto a profile. The OAuth mechanics
 * (PKCE, code exchange, refresh) are the same for all of them and live in `client.ts`.
 */
import type { OAuthProviderType } from "../../config/index.ts";

/** What a sign-in learns about the provider's user. */
export type ProviderProfile = {
  accountId: string;
  email: string | null;
  /** Only true when the provider vouches that the user controls the address. */
  emailVerified: boolean;
  displayName: string | null;
  profileImageUrl: string | null;
};

/** Per-project settings that change a provider's endpoints or parameters. */
export type ProviderOptions = { microsoftTenantId?: string; facebookConfigId?: string; clientId: string };

/** Authenticated calls to the provider's user API with the user's access token. */
export type ProviderApi = { getJson: (url: string, headers?: Record<string, string>) => Promise<unknown> };

export type ProviderDefinition = {
  authorizationEndpoint: (options: ProviderOptions) => string;
  tokenEndpoint: (options: ProviderOptions) => string;
  /** Scopes of a sign-in; `provider_scope` adds to them. */
  defaultScopes: readonly string[];
  clientAuthentication: "client_secret_post" | "client_secret_basic";
  /** Extra authorization request parameters (e.g. Google's offline access). */
  authorizationParams?: (options: ProviderOptions) => Record<string, string>;
  /** `idToken` is the raw ID token of the token response, for providers without a user API (Apple). */
  fetchProfile: (
    api: ProviderApi,
    context: { idToken: string | null; clientId: string },
  ) => Promise<ProviderProfile>;
  /** Bends a non-standard token response into RFC 6749 shape before it is processed. */
  normalizeTokenResponse?: (json: Record<string, unknown>) => Record<string, unknown>;
};

export class ProviderProfileError extends Error {
  override readonly name = "ProviderProfileError";
}

function text(value: unknown): string | null {
  if (typeof value === "string" && value.trim() !== "") return value;
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  return null;
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

function requireAccountId(value: unknown, provider: string): string {
  const id = text(value);
  if (!id) throw new ProviderProfileError(`${provider} did not return a user id.`);
  return id;
}

/** The standard OpenID Connect claims, as returned by a userinfo endpoint or inside an ID token. */
export function profileFromOidcClaims(claims: unknown, provider: string): ProviderProfile {
  const c = record(claims);
  return {
    accountId: requireAccountId(c.sub, provider),
    email: text(c.email),
    // Apple sends the flag as the string "true".
    emailVerified: c.email_verified === true || c.email_verified === "true",
    displayName: text(c.name),
    profileImageUrl: text(c.picture),
  };
}

function decodeJwtPayload(jwt: string | null, provider: string): unknown {
  const payload = jwt?.split(".")[1];
  if (!payload) throw new ProviderProfileError(`${provider} did not return an ID token.`);
  try {
    return JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
  } catch {
    throw new ProviderProfileError(`${provider} returned an unreadable ID token.`);
  }
}

const fixed = (url: string) => () => url;

/** The primary verified address from an email list (GitHub, Bitbucket), else the first verified one. */
function pickEmail(items: unknown, keys: { email: string; primary: string; verified: string }) {
  const list = Array.isArray(items) ? items.map(record) : [];
  const verified = list.filter((item) => item[keys.verified] === true && text(item[keys.email]));
  const chosen = verified.find((item) => item[keys.primary] === true) ?? verified[0];
  return chosen
    ? { email: text(chosen[keys.email]), emailVerified: true }
    : { email: null, emailVerified: false };
}

export const PROVIDERS: Readonly<Record<OAuthProviderType, ProviderDefinition>> = {
  google: {
    authorizationEndpoint: fixed("https://accounts.google.com/o/oauth2/v2/auth"),
    tokenEndpoint: fixed("https://oauth2.googleapis.com/token"),
    defaultScopes: ["openid", "email", "profile"],
    clientAuthentication: "client_secret_post",
    // Without both, Google issues no refresh token, and connected-account tokens would die within the hour.
    authorizationParams: () => ({ access_type: "offline", prompt: "consent" }),
    fetchProfile: async (api) =>
      profileFromOidcClaims(await api.getJson("https://openidconnect.googleapis.com/v1/userinfo"), "Google"),
  },
  github: {
    authorizationEndpoint: fixed("https://github.com/login/oauth/authorize"),
    tokenEndpoint: fixed("https://github.com/login/oauth/access_token"),
    defaultScopes: ["user:email"],
    clientAuthentication: "client_secret_post",
    fetchProfile: async (api) => {
      const headers = { accept: "application/vnd.github+json" };
      const user = record(await api.getJson("https://api.github.com/user", headers));
      // The profile's `email` is whatever the user made public; only the emails API says what is verified.
      const emails = await api.getJson("https://api.github.com/user/emails", headers);
      return {
        accountId: requireAccountId(user.id, "GitHub"),
        ...pickEmail(emails, { email: "email", primary: "primary", verified: "verified" }),
        displayName: text(user.name) ?? text(user.login),
        profileImageUrl: text(user.avatar_url),
      };
    },
  },
  microsoft: {
    authorizationEndpoint: (o) =>
      `https://login.microsoftonline.com/${encodeURIComponent(o.microsoftTenantId || "common")}/oauth2/v2.0/authorize`,
    tokenEndpoint: (o) =>
      `https://login.microsoftonline.com/${encodeURIComponent(o.microsoftTenantId || "common")}/oauth2/v2.0/token`,
    defaultScopes: ["openid", "profile", "email", "offline_access", "User.Read"],
    clientAuthentication: "client_secret_post",
    fetchProfile: async (api) => {
      const me = record(await api.getJson("https://graph.microsoft.com/v1.0/me"));
      return {
        accountId: requireAccountId(me.id, "Microsoft"),
        email: text(me.mail) ?? text(me.userPrincipalName),
        // Entra ID lets tenant admins set any address here, so it proves nothing (the "nOAuth" problem).
        emailVerified: false,
        displayName: text(me.displayName),
        profileImageUrl: null,
      };
    },
  },
  facebook: {
    authorizationEndpoint: fixed("https://www.facebook.com/v19.0/dialog/oauth"),
    tokenEndpoint: fixed("https://graph.facebook.com/v19.0/oauth/access_token"),
    defaultScopes: ["public_profile", "email"],
    clientAuthentication: "client_secret_post",
    // Facebook Login for Business configures the permissions in a configuration instead of scopes.
    authorizationParams: (o): Record<string, string> =>
      o.facebookConfigId ? { config_id: o.facebookConfigId } : {},
    fetchProfile: async (api) => {
      const me = record(
        await api.getJson("https://graph.facebook.com/v19.0/me?fields=id,name,email,picture"),
      );
      const email = text(me.email);
      return {
        accountId: requireAccountId(me.id, "Facebook"),
        email,
        // Facebook only returns confirmed addresses.
        emailVerified: email !== null,
        displayName: text(me.name),
        profileImageUrl: text(record(record(me.picture).data).url),
      };
    },
  },
  discord: {
    authorizationEndpoint: fixed("https://discord.com/oauth2/authorize"),
    tokenEndpoint: fixed("https://discord.com/api/oauth2/token"),
    defaultScopes: ["identify", "email"],
    clientAuthentication: "client_secret_post",
    fetchProfile: async (api) => {
      const me = record(await api.getJson("https://discord.com/api/users/@me"));
      const id = requireAccountId(me.id, "Discord");
      const avatar = text(me.avatar);
      return {
        accountId: id,
        email: text(me.email),
        emailVerified: me.verified === true,
        displayName: text(me.global_name) ?? text(me.username),
        profileImageUrl: avatar ? `https://cdn.discordapp.com/avatars/${id}/${avatar}.png` : null,
      };
    },
  },
  gitlab: {
    authorizationEndpoint: fixed("https://gitlab.com/oauth/authorize"),
    tokenEndpoint: fixed("https://gitlab.com/oauth/token"),
    defaultScopes: ["read_user"],
    clientAuthentication: "client_secret_post",
    fetchProfile: async (api) => {
      const me = record(await api.getJson("https://gitlab.com/api/v4/user"));
      return {
        accountId: requireAccountId(me.id, "GitLab"),
        email: text(me.email),
        emailVerified: text(me.confirmed_at) !== null,
        displayName: text(me.name) ?? text(me.username),
        profileImageUrl: text(me.avatar_url),
      };
    },
  },
  bitbucket: {
    authorizationEndpoint: fixed("https://bitbucket.org/site/oauth2/authorize"),
    tokenEndpoint: fixed("https://bitbucket.org/site/oauth2/access_token"),
    defaultScopes: ["account", "email"],
    clientAuthentication: "client_secret_basic",
    fetchProfile: async (api) => {
      const me = record(await api.getJson("https://api.bitbucket.org/2.0/user"));
      const emails = record(await api.getJson("https://api.bitbucket.org/2.0/user/emails")).values;
      return {
        accountId: requireAccountId(me.uuid, "Bitbucket"),
        ...pickEmail(emails, { email: "email", primary: "is_primary", verified: "is_confirmed" }),
        displayName: text(me.display_name),
        profileImageUrl: text(record(record(me.links).avatar).href),
      };
    },
  },
  linkedin: {
    authorizationEndpoint: fixed("https://www.linkedin.com/oauth/v2/authorization"),
    tokenEndpoint: fixed("https://www.linkedin.com/oauth/v2/accessToken"),
    defaultScopes: ["openid", "profile", "email"],
    clientAuthentication: "client_secret_post",
    fetchProfile: async (api) =>
      profileFromOidcClaims(await api.getJson("https://api.linkedin.com/v2/userinfo"), "LinkedIn"),
  },
  apple: {
    authorizationEndpoint: fixed("https://appleid.apple.com/auth/authorize"),
    tokenEndpoint: fixed("https://appleid.apple.com/auth/token"),
    defaultScopes: ["name", "email"],
    clientAuthentication: "client_secret_post",
    // Apple requires form_post whenever name or email is requested; the callback accepts POST for this.
    authorizationParams: () => ({ response_mode: "form_post" }),
    // Apple has no user API. The ID token came straight from Apple's token endpoint over TLS, which is what
    // vouches for it (OpenID Connect Core §3.1.3.7), so its claims are read without checking the signature.
    fetchProfile: async (_api, context) =>
      profileFromOidcClaims(decodeJwtPayload(context.idToken, "Apple"), "Apple"),
  },
  x: {
    authorizationEndpoint: fixed("https://x.com/i/oauth2/authorize"),
    tokenEndpoint: fixed("https://api.x.com/2/oauth2/token"),
    defaultScopes: ["users.read", "tweet.read", "offline.access"],
    clientAuthentication: "client_secret_basic",
    fetchProfile: async (api) => {
      const me = record(
        record(await api.getJson("https://api.x.com/2/users/me?user.fields=profile_image_url")).data,
      );
      return {
        accountId: requireAccountId(me.id, "X"),
        email: null,
        emailVerified: false,
        displayName: text(me.name) ?? text(me.username),
        profileImageUrl: text(me.profile_image_url),
      };
    },
  },
  spotify: {
    authorizationEndpoint: fixed("https://accounts.spotify.com/authorize"),
    tokenEndpoint: fixed("https://accounts.spotify.com/api/token"),
    defaultScopes: ["user-read-email", "user-read-private"],
    clientAuthentication: "client_secret_basic",
    fetchProfile: async (api) => {
      const me = record(await api.getJson("https://api.spotify.com/v1/me"));
      const images = Array.isArray(me.images) ? me.images.map(record) : [];
      return {
        accountId: requireAccountId(me.id, "Spotify"),
        email: text(me.email),
        // Spotify does not say whether the address was confirmed.
        emailVerified: false,
        displayName: text(me.display_name),
        profileImageUrl: text(images[0]?.url),
      };
    },
  },
  twitch: {
    authorizationEndpoint: fixed("https://id.twitch.tv/oauth2/authorize"),
    tokenEndpoint: fixed("https://id.twitch.tv/oauth2/token"),
    defaultScopes: ["user:read:email"],
    clientAuthentication: "client_secret_post",
    // Twitch sends `scope` as an array; RFC 6749 says a space-separated string.
    normalizeTokenResponse: (json) =>
      Array.isArray(json.scope)
        ? { ...json, scope: json.scope.filter((s) => typeof s === "string").join(" ") }
        : json,
    fetchProfile: async (api, context) => {
      // Helix wants the app's client id beside the user's token.
      const users = record(
        await api.getJson("https://api.twitch.tv/helix/users", { "client-id": context.clientId }),
      ).data;
      const me = record(Array.isArray(users) ? users[0] : undefined);
      const email = text(me.email);
      return {
        accountId: requireAccountId(me.id, "Twitch"),
        email,
        // Twitch only returns verified addresses.
        emailVerified: email !== null,
        displayName: text(me.display_name) ?? text(me.login),
        profileImageUrl: text(me.profile_image_url),
      };
    },
  },
};
