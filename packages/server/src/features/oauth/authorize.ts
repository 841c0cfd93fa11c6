/**
 * `GET /auth/oauth/authorize/:provider_id` (PROTOCOL.md §4.7 steps 1-2): checks the app's request, remembers it
 * under a fresh inner state, and sends the browser to the provider with our own state and PKCE challenge.
 */
import { knownError } from "@gatehouse/shared";
import { lt } from "drizzle-orm";
import * as oauth from "oauth4webapi";
import { z } from "zod";
import type { RenderedConfig } from "../../config/index.ts";
import { assertTrustedCallbackUrl } from "../../config/trusted-urls.ts";
import { encryptSecret, randomHex, sha256Hex } from "../../crypto/index.ts";
import type { AppDeps } from "../../deps.ts";
import { jsonResponse } from "../../http/responses.ts";
import { defineRoute } from "../../http/route.ts";
import { schemaError } from "../../http/schema-error.ts";
import type { ProjectRow } from "../projects/schema.ts";
import { authorizationUrl, resolveProvider } from "./client.ts";
import { authenticateOAuthClient, userOfAccessToken } from "./client-auth.ts";
import { findProviderConfig } from "./provider-config.ts";
import { oauthOuterStates } from "./schema.ts";

/** How long the user has at the provider before the flow is refused with OUTER_OAUTH_TIMEOUT. */
export const OUTER_STATE_LIFETIME_MS = 10 * 60 * 1000;
/** Timed-out flows stay this long (so they answer OUTER_OAUTH_TIMEOUT rather than "unknown"), then are swept. */
const OUTER_STATE_RETENTION_MS = 24 * 3600 * 1000;
export const INNER_COOKIE_PREFIX = "stack-oauth-inner-";
/** Purpose label of the encrypted inner PKCE verifier. */
export const INNER_VERIFIER_PURPOSE = "oauth-inner-code-verifier";

/** RFC 7636 §4.1: a code verifier, and so a `plain` challenge: 43 to 128 unreserved characters. */
export const PKCE_VALUE = /^[A-Za-z0-9\-._~]{43,128}$/;
/** RFC 7636 §4.2: an S256 challenge is BASE64URL(SHA-256(verifier)) without padding, always 43 characters. */
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/** Optional text parameters: an empty value counts as absent, as the SDK sometimes sends `x=`. */
const optionalText = z
  .string()
  .optional()
  .transform((value) => value || undefined);

export const authorizeQuerySchema = z.looseObject({
  client_id: z.string().min(1),
  client_secret: optionalText,
  redirect_uri: z.string().min(1),
  scope: z.string(),
  state: z.string().min(1).max(2048),
  grant_type: z.literal("authorization_code"),
  // The method and the challenge's form are checked by `challengeIssues`, after the redirect URLs and the provider
  // scope, as the reference reports those first (it checks no challenge at all here).
  code_challenge: z.string().min(1),
  code_challenge_method: z.string(),
  response_type: z.literal("code"),
  type: z.enum(["authenticate", "link"]).default("authenticate"),
  error_redirect_url: optionalText,
  token: optionalText,
  after_callback_redirect_url: optionalText,
  provider_scope: optionalText,
  stack_response_mode: z.enum(["json", "redirect"]).optional(),
  hexclave_response_mode: z.enum(["json", "redirect"]).optional(),
});

/**
 * What the reference's OAuth server (@node-oauth/oauth2-server) takes as a method: S256 or plain, case-sensitive,
 * and an empty method meaning plain (RFC 7636 §4.3's default). The reference stores any challenge and fails only at
 * the code exchange; a challenge no verifier can ever match is refused here, before the user is sent to the
 * provider for nothing (README: deliberate differences).
 */
function challengeIssues(query: AuthorizeQuery): z.core.$ZodIssue[] {
  const method = query.code_challenge_method;
  if (method !== "S256" && method !== "plain" && method !== "") {
    return [
      {
        code: "custom",
        path: ["code_challenge_method"],
        message: 'must be "S256" or "plain"',
        input: method,
      },
    ];
  }
  const s256 = method === "S256";
  if ((s256 ? S256_CHALLENGE : PKCE_VALUE).test(query.code_challenge)) return [];
  return [
    {
      code: "custom",
      path: ["code_challenge"],
      message: s256
        ? "an S256 challenge is the unpadded base64url SHA-256 of the verifier: 43 characters of [A-Za-z0-9-_]"
        : "a plain challenge is the verifier itself: 43 to 128 characters of [A-Za-z0-9-._~]",
      input: query.code_challenge,
    },
  ];
}

export type AuthorizeQuery = z.output<typeof authorizeQuerySchema>;

function assertTrustedRedirect(config: RenderedConfig, url: string | undefined): void {
  if (url === undefined) return;
  assertTrustedCallbackUrl(config, url);
}

/** Our callback URL for a provider, as registered with it. */
export function callbackUrlFor(deps: AppDeps, providerId: string): string {
  return `${deps.env.baseUrl}/api/v1/auth/oauth/callback/${encodeURIComponent(providerId)}`;
}

/**
 * The project key is checked before the rest of the query, as the reference does for every request: an app with a
 * wrong key learns that, not which of its other parameters are malformed.
 */
async function authorizeFromRawQuery(deps: AppDeps, providerId: string, raw: Record<string, unknown>) {
  const text = (value: unknown) => (typeof value === "string" ? value : undefined);
  const invalid = (issues: z.core.$ZodIssue[]) =>
    schemaError("GET", `/api/v1/auth/oauth/authorize/${providerId}`, "query", issues);
  // Without a client id there is no project whose key could be wrong: the query itself is.
  if (!text(raw.client_id)) {
    const parsed = authorizeQuerySchema.safeParse(raw);
    if (!parsed.success) throw invalid(parsed.error.issues);
  }
  const client = await authenticateOAuthClient(
    deps,
    text(raw.client_id) ?? "",
    text(raw.client_secret) || undefined,
    "publishable-key",
  );
  const parsed = authorizeQuerySchema.safeParse(raw);
  if (!parsed.success) throw invalid(parsed.error.issues);
  return startAuthorization(deps, providerId, parsed.data, client);
}

export async function startAuthorization(
  deps: AppDeps,
  providerId: string,
  query: AuthorizeQuery,
  client: { project: ProjectRow; config: RenderedConfig },
) {
  const { project, config } = client;
  if (query.scope !== "legacy") throw knownError("INVALID_SCOPE");

  const entry = findProviderConfig(config, providerId);
  const usable =
    entry &&
    (query.type === "link"
      ? entry.provider.allowSignIn || entry.provider.allowConnectedAccounts
      : entry.provider.allowSignIn);
  if (!entry || !usable) throw knownError("OAUTH_PROVIDER_NOT_FOUND_OR_NOT_ENABLED");

  const redirectUri = query.redirect_uri.split("#")[0]!;
  assertTrustedRedirect(config, redirectUri);
  assertTrustedRedirect(config, query.error_redirect_url);
  assertTrustedRedirect(config, query.after_callback_redirect_url);

  const user = query.token ? await userOfAccessToken(deps, project.id, query.token) : null;
  if (query.type === "link" && !user) throw knownError("USER_AUTHENTICATION_REQUIRED");

  const extraScopes = query.provider_scope?.split(/[\s,]+/).filter(Boolean) ?? [];
  // Shared keys are the server operator's app at the provider; what it may ask for is not the project's choice.
  if (extraScopes.length > 0 && entry.provider.isShared) {
    throw knownError("OAUTH_EXTRA_SCOPE_NOT_AVAILABLE_WITH_SHARED_OAUTH_KEYS");
  }
  const problems = challengeIssues(query);
  if (problems.length > 0) {
    throw schemaError("GET", `/api/v1/auth/oauth/authorize/${providerId}`, "query", problems);
  }
  const codeChallengeMethod = query.code_challenge_method === "S256" ? "S256" : "plain";
  const callbackUrl = callbackUrlFor(deps, providerId);
  const provider = await resolveProvider(deps.env, entry, callbackUrl);

  const innerState = randomHex(32);
  const verifier = oauth.generateRandomCodeVerifier();
  const now = Date.now();
  await deps.db
    .delete(oauthOuterStates)
    .where(lt(oauthOuterStates.expiresAt, new Date(now - OUTER_STATE_RETENTION_MS)));
  const responseMode =
    query.stack_response_mode === "json" || query.hexclave_response_mode === "json" ? "json" : "redirect";
  await deps.db.insert(oauthOuterStates).values({
    stateHash: sha256Hex(innerState),
    projectId: project.id,
    providerId,
    providerConfigId: entry.configId,
    callbackUrl,
    codeVerifierEncrypted: encryptSecret(verifier, {
      masterSecret: deps.env.secret,
      purpose: INNER_VERIFIER_PURPOSE,
    }),
    providerScopes: [...new Set([...provider.scopes, ...extraScopes])],
    type: query.type,
    userId: user?.id ?? null,
    redirectUri,
    clientState: query.state,
    codeChallenge: query.code_challenge,
    codeChallengeMethod,
    errorRedirectUrl: query.error_redirect_url ?? null,
    afterCallbackRedirectUrl: query.after_callback_redirect_url ?? null,
    responseMode,
    expiresAt: new Date(now + OUTER_STATE_LIFETIME_MS),
  });

  const location = authorizationUrl(provider, {
    callbackUrl,
    state: innerState,
    codeChallenge: await oauth.calculatePKCECodeChallenge(verifier),
    extraScopes,
  });
  // A browser app that cannot follow a cross-origin redirect from fetch asks for the URL instead (and gets no
  // cookie, so its callback is not cookie-checked).
  if (responseMode === "json") return jsonResponse({ location });

  const maxAgeSeconds = OUTER_STATE_LIFETIME_MS / 1000;
  const cookie = [
    `${INNER_COOKIE_PREFIX}${innerState}=true`,
    "Path=/",
    `Expires=${new Date(now + OUTER_STATE_LIFETIME_MS).toUTCString()}`,
    `Max-Age=${maxAgeSeconds}`,
    ...stateCookieAttributes(
      deps.env.baseUrl,
      new URL(location).searchParams.get("response_mode") === "form_post",
    ),
  ].join("; ");
  return new Response(null, { status: 307, headers: { location, "set-cookie": cookie } });
}

export const authorizeRoute = defineRoute({
  method: "GET",
  path: "/auth/oauth/authorize/:provider_id",
  summary: "Start an OAuth sign-in or account link: redirects to the provider",
  tags: ["OAuth"],
  // The app authenticates with client_id/client_secret in the query, like at the token endpoint.
  access: "public",
  request: {
    params: z.strictObject({ provider_id: z.string().min(1).max(100) }),
    // The whole query (authorizeQuerySchema) is validated in the handler, after the project key.
    query: z.looseObject({ client_id: z.string().optional(), client_secret: z.string().optional() }),
  },
  response: {
    raw: true,
    description:
      "307 to the provider with the inner-state cookie, or 200 `{location}` with stack_response_mode=json",
  },
  handler: ({ deps, params, query }) => authorizeFromRawQuery(deps, params.provider_id, query),
});

/**
 * Attributes of the cookie that ties a provider's callback to the browser that started the flow. HttpOnly always;
 * Secure whenever the server is on HTTPS. SameSite=Lax: the provider's redirect back is a top-level GET, which Lax
 * cookies accompany, while cross-site subrequests do not carry it. A provider that returns with a cross-site form
 * POST (Apple's form_post) needs SameSite=None, which browsers accept only with Secure, so only over HTTPS.
 */
export function stateCookieAttributes(baseUrl: string, returnsWithCrossSitePost: boolean): string[] {
  const https = baseUrl.startsWith("https://");
  const sameSite = returnsWithCrossSitePost && https ? "None" : "Lax";
  return [...(https ? ["Secure"] : []), "HttpOnly", `SameSite=${sameSite}`];
}
