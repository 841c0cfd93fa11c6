/**
 * `POST /auth/oauth/callback/apple/native` (PROTOCOL.md §4.7, "other OAuth-related routes"): an iOS or macOS app
 * signs in with Sign in with Apple natively (ASAuthorizationController) and posts the identity token Apple gave it.
 * The token proves who the user is only once it verifies against Apple's keys, was issued by Apple, to one of the
 * project's app bundle ids, and has not expired. Then the user is found, linked or created as in the browser flow
 * (sign-in-user.ts) and gets a session.
 */
import { knownError } from "@gatehouse/shared";
import { z } from "zod";
import type { RenderedConfig } from "../../config/index.ts";
import type { AppDeps } from "../../deps.ts";
import { defineRoute } from "../../http/route.ts";
import { completeSignIn } from "../sessions/sign-in.ts";
import { IdTokenError, verifyIdToken } from "./id-token.ts";
import { findProviderConfig } from "./provider-config.ts";
import { resolveEndpoints } from "./provider-endpoints.ts";
import { ownerProviderFetch, platformFetch } from "./provider-fetch.ts";
import { PROVIDERS, profileFromOidcClaims } from "./providers.ts";
import { signInWithProviderAccount } from "./sign-in-user.ts";

/** Whose keys an identity token must verify against: Apple's, or the issuer the project put in Apple's place. */
async function appleKeys(deps: AppDeps, provider: RenderedConfig["auth"]["oauth"]["providers"][string]) {
  const apple = PROVIDERS.apple;
  const options = { clientId: provider.clientId ?? "" };
  const endpoints = await resolveEndpoints(deps.env, provider, {
    authorizationEndpoint: apple.authorizationEndpoint(options),
    tokenEndpoint: apple.tokenEndpoint(options),
    userInfoEndpoint: null,
    issuer: apple.idTokens!.issuer,
    jwksUri: apple.idTokens!.jwksUri,
  });
  return {
    issuer: endpoints.issuer!,
    jwksUri: endpoints.jwksUri!,
    fetcher: endpoints.ownerSupplied ? ownerProviderFetch(deps.env) : platformFetch,
  };
}

export const appleNativeCallbackRoute = defineRoute({
  method: "POST",
  path: "/auth/oauth/callback/apple/native",
  summary: "Sign in with the identity token of a native Sign in with Apple (iOS, macOS)",
  tags: ["OAuth"],
  access: ["client", "server", "admin"],
  request: { body: z.strictObject({ id_token: z.string().min(1).max(16_384) }) },
  response: {
    body: z.object({
      access_token: z.string(),
      refresh_token: z.string(),
      user_id: z.string(),
      is_new_user: z.boolean(),
    }),
  },
  handler: async ({ deps, auth, body, request, clientIp }) => {
    const { project, config } = auth;
    const entry = findProviderConfig(config, "apple");
    if (entry?.provider.type !== "apple" || !entry.provider.allowSignIn) {
      throw knownError("OAUTH_PROVIDER_NOT_FOUND_OR_NOT_ENABLED");
    }
    // A native app's tokens are issued to its bundle id, not to the web Services ID.
    const bundleIds = Object.values(entry.provider.appleBundles ?? {}).map((bundle) => bundle.bundleId);
    if (bundleIds.length === 0) throw knownError("APPLE_BUNDLE_ID_NOT_CONFIGURED");

    const keys = await appleKeys(deps, entry.provider);
    let claims: Record<string, unknown>;
    try {
      claims = await verifyIdToken({ idToken: body.id_token, audience: bundleIds, ...keys });
    } catch (error) {
      if (!(error instanceof IdTokenError)) throw error;
      if (error.kind === "unavailable") {
        throw knownError("OAUTH_PROVIDER_TEMPORARILY_UNAVAILABLE", undefined, error.message);
      }
      throw knownError("INVALID_APPLE_CREDENTIALS", undefined, error.message);
    }

    const { user, isNewUser } = await signInWithProviderAccount(deps, {
      projectId: project.id,
      config,
      flow: { providerId: "apple", providerConfigId: entry.configId, userId: null, type: "authenticate" },
      profile: profileFromOidcClaims(claims, "Apple"),
      tokens: null,
      fromDevelopmentProvider: false,
      ip: clientIp,
    });
    const result = await completeSignIn(deps, {
      projectId: project.id,
      config,
      user,
      isNewUser,
      ip: clientIp,
      userAgent: request.headers.get("user-agent"),
    });
    return { body: result };
  },
});
