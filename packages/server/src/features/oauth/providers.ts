/**
 * The OAuth providers Gatehouse knows (PROTOCOL.md §3.10): where each one's endpoints are, which scopes a sign-in
 * asks for, how it wants the client to authenticate, and how its user API maps onto a profile. The OAuth mechanics
 * (PKCE, code exchange, refresh) are the same for all of them and live in `client.ts`.
 */
import type { OAuthProviderType } from "../../config/index.ts";

/** Apple's OpenID issuer: its ID tokens' `iss`, and the audience of the client secrets minted for it. */
export const APPLE_ISSUER = "https://appleid.apple.com";

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

/** What a profile is read from besides the user API. */
export type ProfileContext = {
  clientId: string;
  /** The user API's address (the built-in one, or the project's `userInfoEndpoint`); null when there is none. */
  userInfoEndpoint: string | null;
  /** The claims of the sign-in's ID token, once verified against the issuer's keys; null without one. */
  idTokenClaims: Record<string, unknown> | null;
};

export type ProviderDefinition = {
  authorizationEndpoint: (options: ProviderOptions) => string;
  tokenEndpoint: (options: ProviderOptions) => string;
  /** The user API the profile is read from; null for a provider that has none (Apple: the ID token). */
  userInfoEndpoint: ((options: ProviderOptions) => string) | null;
  /** Who issues the provider's ID tokens and where its keys are, for a provider whose profile is the ID token. */
  idTokens?: { issuer: string; jwksUri: string };
  /** Scopes of a sign-in; `provider_scope` adds to them. */
  defaultScopes: readonly string[];
  clientAuthentication: "client_secret_post" | "client_secret_basic";
  /** Extra authorization request parameters (e.g. Google's offline access). */
  authorizationParams?: (options: ProviderOptions) => Record<string, string>;
  fetchProfile: (api: ProviderApi, context: ProfileContext) => Promise<ProviderProfile>;
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

/** The user API's address; providers with one always have it (the built-in one or the project's). */
function userApi(context: ProfileContext, provider: string): string {
  if (!context.userInfoEndpoint) throw new ProviderProfileError(`${provider} has no user API configured.`);
  return context.userInfoEndpoint;
}

/** A list beside the user API (`…/user` → `…/user/emails`), so a self-hosted instance's API base carries over. */
function besideUserApi(userInfoEndpoint: string, suffix: string): string {
  const url = new URL(userInfoEndpoint);
  url.pathname = `${url.pathname.replace(/\/$/, "")}/${suffix}`;
  url.search = "";
  return url.toString();
}

/**
 * The profile of an OpenID Connect sign-in (the generic provider, or any provider given an issuer): the userinfo
 * endpoint's claims when there is one, else the verified ID token's. OpenID Connect Core §5.3.2: userinfo answering
 * for another subject than the ID token is not to be used.
 */
export async function openIdProfile(api: ProviderApi, context: ProfileContext): Promise<ProviderProfile> {
  if (context.userInfoEndpoint) {
    const claims = await api.getJson(context.userInfoEndpoint);
    const profile = profileFromOidcClaims(claims, "The OpenID provider");
    if (context.idTokenClaims && context.idTokenClaims.sub !== profile.accountId) {
      throw new ProviderProfileError(
        "The OpenID provider's userinfo is about another user than its ID token.",
      );
    }
    return profile;
  }
  if (!context.idTokenClaims)
    throw new ProviderProfileError("The OpenID provider did not return an ID token.");
  return profileFromOidcClaims(context.idTokenClaims, "The OpenID provider");
}

/** What an OpenID Connect sign-in asks for (`openid` is what makes it one). */
export const OPENID_SCOPES = ["openid", "email", "profile"] as const;

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
    userInfoEndpoint: fixed("https://openidconnect.googleapis.com/v1/userinfo"),
    fetchProfile: async (api, context) =>
      profileFromOidcClaims(await api.getJson(userApi(context, "Google")), "Google"),
  },
  github: {
    authorizationEndpoint: fixed("https://github.com/login/oauth/authorize"),
    tokenEndpoint: fixed("https://github.com/login/oauth/access_token"),
    defaultScopes: ["user:email"],
    clientAuthentication: "client_secret_post",
    userInfoEndpoint: fixed("https://api.github.com/user"),
    fetchProfile: async (api, context) => {
      const headers = { accept: "application/vnd.github+json" };
      const url = userApi(context, "GitHub");
      const user = record(await api.getJson(url, headers));
      // The profile's `email` is whatever the user made public; only the emails API says what is verified.
      const emails = await api.getJson(besideUserApi(url, "emails"), headers);
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
    userInfoEndpoint: fixed("https://graph.microsoft.com/v1.0/me"),
    fetchProfile: async (api, context) => {
      const me = record(await api.getJson(userApi(context, "Microsoft")));
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
    userInfoEndpoint: fixed("https://graph.facebook.com/v19.0/me?fields=id,name,email,picture"),
    fetchProfile: async (api, context) => {
      const me = record(await api.getJson(userApi(context, "Facebook")));
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
    userInfoEndpoint: fixed("https://discord.com/api/users/@me"),
    fetchProfile: async (api, context) => {
      const me = record(await api.getJson(userApi(context, "Discord")));
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
    userInfoEndpoint: fixed("https://gitlab.com/api/v4/user"),
    fetchProfile: async (api, context) => {
      const me = record(await api.getJson(userApi(context, "GitLab")));
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
    userInfoEndpoint: fixed("https://api.bitbucket.org/2.0/user"),
    fetchProfile: async (api, context) => {
      const url = userApi(context, "Bitbucket");
      const me = record(await api.getJson(url));
      const emails = record(await api.getJson(besideUserApi(url, "emails"))).values;
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
    userInfoEndpoint: fixed("https://api.linkedin.com/v2/userinfo"),
    fetchProfile: async (api, context) =>
      profileFromOidcClaims(await api.getJson(userApi(context, "LinkedIn")), "LinkedIn"),
  },
  apple: {
    authorizationEndpoint: fixed("https://appleid.apple.com/auth/authorize"),
    tokenEndpoint: fixed("https://appleid.apple.com/auth/token"),
    defaultScopes: ["name", "email"],
    clientAuthentication: "client_secret_post",
    // Apple requires form_post whenever name or email is requested; the callback accepts POST for this.
    authorizationParams: () => ({ response_mode: "form_post" }),
    // Apple has no user API: the profile is the ID token, verified against Apple's keys like any other.
    userInfoEndpoint: null,
    idTokens: { issuer: APPLE_ISSUER, jwksUri: "https://appleid.apple.com/auth/keys" },
    fetchProfile: async (_api, context) => {
      if (!context.idTokenClaims) throw new ProviderProfileError("Apple did not return an ID token.");
      return profileFromOidcClaims(context.idTokenClaims, "Apple");
    },
  },
  x: {
    authorizationEndpoint: fixed("https://x.com/i/oauth2/authorize"),
    tokenEndpoint: fixed("https://api.x.com/2/oauth2/token"),
    defaultScopes: ["users.read", "tweet.read", "offline.access"],
    clientAuthentication: "client_secret_basic",
    userInfoEndpoint: fixed("https://api.x.com/2/users/me?user.fields=profile_image_url"),
    fetchProfile: async (api, context) => {
      const me = record(record(await api.getJson(userApi(context, "X"))).data);
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
    userInfoEndpoint: fixed("https://api.spotify.com/v1/me"),
    fetchProfile: async (api, context) => {
      const me = record(await api.getJson(userApi(context, "Spotify")));
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
    userInfoEndpoint: fixed("https://api.twitch.tv/helix/users"),
    fetchProfile: async (api, context) => {
      // Helix wants the app's client id beside the user's token.
      const users = record(
        await api.getJson(userApi(context, "Twitch"), { "client-id": context.clientId }),
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
