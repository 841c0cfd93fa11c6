/**
 * The provider table's profile mappings, fed with responses shaped like each provider's documented user API (the
 * HTTP side is covered by the flow tests against the development provider).
 */
import { describe, expect, it } from "vitest";
import { OAUTH_PROVIDER_TYPES } from "../../config/index.ts";
import { PROVIDERS, type ProviderProfile, ProviderProfileError } from "./providers.ts";

function apiAnswering(responses: Record<string, unknown>) {
  const calls: { url: string; headers?: Record<string, string> }[] = [];
  return {
    calls,
    api: {
      getJson: async (url: string, headers?: Record<string, string>) => {
        calls.push({ url, headers });
        if (!(url in responses)) throw new Error(`unexpected call to ${url}`);
        return responses[url];
      },
    },
  };
}

const cases: Record<
  string,
  { responses: Record<string, unknown>; idTokenClaims?: Record<string, unknown>; profile: ProviderProfile }
> = {
  google: {
    responses: {
      "https://openidconnect.googleapis.com/v1/userinfo": {
        sub: "1081",
        email: "ada@gmail.com",
        email_verified: true,
        name: "Ada",
        picture: "https://lh3.example/a.png",
      },
    },
    profile: {
      accountId: "1081",
      email: "ada@gmail.com",
      emailVerified: true,
      displayName: "Ada",
      profileImageUrl: "https://lh3.example/a.png",
    },
  },
  github: {
    responses: {
      "https://api.github.com/user": {
        id: 42,
        login: "ada",
        name: null,
        avatar_url: "https://gh.example/a.png",
      },
      "https://api.github.com/user/emails": [
        { email: "old@example.com", primary: false, verified: true },
        { email: "unverified@example.com", primary: true, verified: false },
      ],
    },
    profile: {
      accountId: "42",
      email: "old@example.com",
      emailVerified: true,
      displayName: "ada",
      profileImageUrl: "https://gh.example/a.png",
    },
  },
  microsoft: {
    responses: {
      "https://graph.microsoft.com/v1.0/me": {
        id: "ms-1",
        displayName: "Ada",
        mail: null,
        userPrincipalName: "ada@contoso.example",
      },
    },
    profile: {
      accountId: "ms-1",
      email: "ada@contoso.example",
      emailVerified: false,
      displayName: "Ada",
      profileImageUrl: null,
    },
  },
  facebook: {
    responses: {
      "https://graph.facebook.com/v19.0/me?fields=id,name,email,picture": {
        id: "fb-1",
        name: "Ada",
        email: "ada@fb.example",
        picture: { data: { url: "https://fb.example/a.png" } },
      },
    },
    profile: {
      accountId: "fb-1",
      email: "ada@fb.example",
      emailVerified: true,
      displayName: "Ada",
      profileImageUrl: "https://fb.example/a.png",
    },
  },
  discord: {
    responses: {
      "https://discord.com/api/users/@me": {
        id: "80351110224678912",
        username: "ada",
        global_name: "Ada",
        avatar: "8342729096ea3675442027381ff50dfe",
        email: "ada@discord.example",
        verified: true,
      },
    },
    profile: {
      accountId: "80351110224678912",
      email: "ada@discord.example",
      emailVerified: true,
      displayName: "Ada",
      profileImageUrl:
        "https://cdn.discordapp.com/avatars/80351110224678912/8342729096ea3675442027381ff50dfe.png",
    },
  },
  gitlab: {
    responses: {
      "https://gitlab.com/api/v4/user": {
        id: 7,
        username: "ada",
        name: "Ada",
        email: "ada@gitlab.example",
        confirmed_at: "2020-01-01T00:00:00Z",
        avatar_url: null,
      },
    },
    profile: {
      accountId: "7",
      email: "ada@gitlab.example",
      emailVerified: true,
      displayName: "Ada",
      profileImageUrl: null,
    },
  },
  bitbucket: {
    responses: {
      "https://api.bitbucket.org/2.0/user": {
        uuid: "{b-1}",
        display_name: "Ada",
        links: { avatar: { href: "https://bb.example/a.png" } },
      },
      "https://api.bitbucket.org/2.0/user/emails": {
        values: [{ email: "ada@bb.example", is_primary: true, is_confirmed: true }],
      },
    },
    profile: {
      accountId: "{b-1}",
      email: "ada@bb.example",
      emailVerified: true,
      displayName: "Ada",
      profileImageUrl: "https://bb.example/a.png",
    },
  },
  linkedin: {
    responses: {
      "https://api.linkedin.com/v2/userinfo": {
        sub: "li-1",
        name: "Ada",
        email: "ada@li.example",
        email_verified: true,
      },
    },
    profile: {
      accountId: "li-1",
      email: "ada@li.example",
      emailVerified: true,
      displayName: "Ada",
      profileImageUrl: null,
    },
  },
  apple: {
    responses: {},
    // Verified ID token claims (client.ts checks the token against Apple's keys first: apple.test.ts).
    idTokenClaims: { sub: "001.apple", email: "ada@privaterelay.appleid.com", email_verified: "true" },
    profile: {
      accountId: "001.apple",
      email: "ada@privaterelay.appleid.com",
      emailVerified: true,
      displayName: null,
      profileImageUrl: null,
    },
  },
  x: {
    responses: {
      "https://api.x.com/2/users/me?user.fields=profile_image_url": {
        data: {
          id: "2244994945",
          name: "Ada",
          username: "ada",
          profile_image_url: "https://x.example/a.png",
        },
      },
    },
    profile: {
      accountId: "2244994945",
      email: null,
      emailVerified: false,
      displayName: "Ada",
      profileImageUrl: "https://x.example/a.png",
    },
  },
  spotify: {
    responses: {
      "https://api.spotify.com/v1/me": {
        id: "ada",
        display_name: "Ada",
        email: "ada@spotify.example",
        images: [{ url: "https://sp.example/a.png" }],
      },
    },
    profile: {
      accountId: "ada",
      email: "ada@spotify.example",
      emailVerified: false,
      displayName: "Ada",
      profileImageUrl: "https://sp.example/a.png",
    },
  },
  twitch: {
    responses: {
      "https://api.twitch.tv/helix/users": {
        data: [
          {
            id: "141981764",
            login: "ada",
            display_name: "Ada",
            email: "ada@twitch.example",
            profile_image_url: "",
          },
        ],
      },
    },
    profile: {
      accountId: "141981764",
      email: "ada@twitch.example",
      emailVerified: true,
      displayName: "Ada",
      profileImageUrl: null,
    },
  },
};

describe("profile mappings", () => {
  it("cover every provider type", () => {
    expect(Object.keys(cases).sort()).toEqual([...OAUTH_PROVIDER_TYPES].sort());
  });

  it.each(Object.entries(cases))("map %s's user API onto a profile", async (type, example) => {
    const { api, calls } = apiAnswering(example.responses);
    const definition = PROVIDERS[type as keyof typeof PROVIDERS];
    const options = { clientId: "app-client" };
    const profile = await definition.fetchProfile(api, {
      idTokenClaims: example.idTokenClaims ?? null,
      clientId: "app-client",
      userInfoEndpoint: definition.userInfoEndpoint?.(options) ?? null,
    });
    expect(profile).toEqual(example.profile);
    if (type === "twitch") expect(calls[0]!.headers).toEqual({ "client-id": "app-client" });
  });

  it("refuse a user API answer without a user id", async () => {
    const { api } = apiAnswering({
      "https://api.github.com/user": { login: "ada" },
      "https://api.github.com/user/emails": [],
    });
    const context = { idTokenClaims: null, clientId: "c" };
    await expect(
      PROVIDERS.github.fetchProfile(api, { ...context, userInfoEndpoint: "https://api.github.com/user" }),
    ).rejects.toBeInstanceOf(ProviderProfileError);
    // Apple without an ID token has nothing to read.
    await expect(
      PROVIDERS.apple.fetchProfile(api, { ...context, userInfoEndpoint: null }),
    ).rejects.toBeInstanceOf(ProviderProfileError);
  });

  it("read a self-hosted instance's user API where the project points them", async () => {
    const { api, calls } = apiAnswering({
      "https://ghe.example.com/api/v3/user": { id: 7, login: "ada", avatar_url: null },
      "https://ghe.example.com/api/v3/user/emails": [
        { email: "ada@corp.example", primary: true, verified: true },
      ],
      "https://gitlab.corp.example/api/v4/user": {
        id: 9,
        email: "ada@corp.example",
        confirmed_at: "2024-01-01",
      },
    });
    const github = await PROVIDERS.github.fetchProfile(api, {
      idTokenClaims: null,
      clientId: "c",
      userInfoEndpoint: "https://ghe.example.com/api/v3/user",
    });
    expect(github).toMatchObject({ accountId: "7", email: "ada@corp.example", emailVerified: true });
    const gitlab = await PROVIDERS.gitlab.fetchProfile(api, {
      idTokenClaims: null,
      clientId: "c",
      userInfoEndpoint: "https://gitlab.corp.example/api/v4/user",
    });
    expect(gitlab).toMatchObject({ accountId: "9", email: "ada@corp.example", emailVerified: true });
    expect(calls.map((call) => call.url)).toEqual([
      "https://ghe.example.com/api/v3/user",
      "https://ghe.example.com/api/v3/user/emails",
      "https://gitlab.corp.example/api/v4/user",
    ]);
  });
});

describe("provider quirks", () => {
  it("Twitch's array scope becomes a space-separated string", () => {
    expect(PROVIDERS.twitch.normalizeTokenResponse!({ access_token: "t", scope: ["a", "b"] })).toEqual({
      access_token: "t",
      scope: "a b",
    });
  });

  it("endpoints follow the Microsoft tenant and the Facebook configuration", () => {
    expect(PROVIDERS.microsoft.tokenEndpoint({ clientId: "c" })).toBe(
      "https://login.microsoftonline.com/common/oauth2/v2.0/token",
    );
    expect(PROVIDERS.microsoft.authorizationEndpoint({ clientId: "c", microsoftTenantId: "t-1" })).toBe(
      "https://login.microsoftonline.com/t-1/oauth2/v2.0/authorize",
    );
    expect(PROVIDERS.facebook.authorizationParams!({ clientId: "c", facebookConfigId: "cfg" })).toEqual({
      config_id: "cfg",
    });
    expect(PROVIDERS.facebook.authorizationParams!({ clientId: "c" })).toEqual({});
  });
});
