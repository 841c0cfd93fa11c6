/**
 * `GET|POST /auth/oauth/callback/:provider_id` (PROTOCOL.md §4.7 step 3): the provider sends the browser back here.
 * The flow is found by its inner state (and, in redirect mode, the inner cookie), used once, the provider's code is
 * exchanged, the user is signed in, linked or created, and the browser goes on to the app with our authorization
 * code. Known errors from then on go to the app's error redirect instead of stranding the user on an API page.
 */
import { KnownError, knownError } from "@gatehouse/shared";
import { eq } from "drizzle-orm";
import { z } from "zod";
import { decryptSecret, sha256Hex } from "../../crypto/index.ts";
import type { AppDeps } from "../../deps.ts";
import { defineRoute } from "../../http/route.ts";
import { StatusError } from "../../http/status-error.ts";
import { getRenderedConfig } from "../projects/config-store.ts";
import { INNER_COOKIE_PREFIX, INNER_VERIFIER_PURPOSE, stateCookieAttributes } from "./authorize.ts";
import { exchangeCode, ProviderCallError, resolveProvider } from "./client.ts";
import { createAuthorizationCode } from "./code-grant.ts";
import { type OAuthOuterStateRow, oauthOuterStates } from "./schema.ts";
import { signInWithProviderAccount } from "./sign-in-user.ts";

const INVALID_STATE = "Invalid OAuth state. Please go back to the app and sign in again.";

const callbackFields = z.looseObject({
  state: z.string().max(2048).optional(),
  code: z.string().max(4096).optional(),
  error: z.string().optional(),
  error_description: z.string().optional(),
  iss: z.string().optional(),
});
type CallbackFields = z.output<typeof callbackFields>;

function hasCookie(request: Request, name: string): boolean {
  const header = request.headers.get("cookie") ?? "";
  return header.split(";").some((part) => part.trim().split("=")[0] === name);
}

/** Provider-supplied text goes into a URL and a message; keep it short. */
const clip = (text: string) => (text.length > 200 ? `${text.slice(0, 200)}…` : text);

/** RFC 6749 §4.1.2.1 error responses from the provider, as known errors. */
function providerError(error: string, description: string | undefined): KnownError {
  const detail = description ? `: ${clip(description)}` : "";
  if (error === "temporarily_unavailable" || error === "server_error") {
    return knownError(
      "OAUTH_PROVIDER_TEMPORARILY_UNAVAILABLE",
      undefined,
      `The OAuth provider is temporarily unavailable (${clip(error)}${detail}). Please try again later.`,
    );
  }
  if (error === "access_denied") return knownError("OAUTH_PROVIDER_ACCESS_DENIED");
  return knownError(
    "OAUTH_PROVIDER_ACCESS_DENIED",
    undefined,
    `The OAuth provider refused the sign-in (${clip(error)}${detail}).`,
  );
}

/** Exchanges the provider's code, signs the user in, and returns the authorization code for the app. */
async function finishFlow(
  deps: AppDeps,
  flow: OAuthOuterStateRow,
  fields: CallbackFields,
  ip: string | null,
): Promise<string> {
  if (fields.error) throw providerError(fields.error, fields.error_description);
  const config = await getRenderedConfig(deps, flow.projectId);
  const provider = config.auth.oauth.providers[flow.providerConfigId];
  // The project may have turned the provider off while the user was away.
  if (!provider) throw knownError("OAUTH_PROVIDER_NOT_FOUND_OR_NOT_ENABLED");
  const resolved = await resolveProvider(
    deps.env,
    { configId: flow.providerConfigId, provider },
    flow.callbackUrl,
  );
  const callback = new URLSearchParams();
  for (const key of ["code", "state", "iss"] as const)
    if (fields[key] !== undefined) callback.set(key, fields[key]);

  let exchanged: Awaited<ReturnType<typeof exchangeCode>>;
  try {
    exchanged = await exchangeCode(resolved, {
      callback,
      state: fields.state!,
      callbackUrl: flow.callbackUrl,
      codeVerifier: decryptSecret(flow.codeVerifierEncrypted, {
        masterSecret: deps.env.secret,
        purpose: INNER_VERIFIER_PURPOSE,
      }),
      scopes: flow.providerScopes,
    });
  } catch (error) {
    if (!(error instanceof ProviderCallError)) throw error;
    throw error.kind === "rejected"
      ? knownError("OAUTH_PROVIDER_ACCESS_DENIED", undefined, clip(error.message))
      : knownError("OAUTH_PROVIDER_TEMPORARILY_UNAVAILABLE", undefined, clip(error.message));
  }

  const { user, isNewUser } = await signInWithProviderAccount(deps, {
    projectId: flow.projectId,
    config,
    flow,
    profile: exchanged.profile,
    tokens: exchanged.tokens,
    fromDevelopmentProvider: resolved.isDevelopmentProvider,
    ip,
  });
  return createAuthorizationCode(deps.db, {
    projectId: flow.projectId,
    userId: user.id,
    isNewUser,
    redirectUri: flow.redirectUri,
    codeChallenge: flow.codeChallenge,
    codeChallengeMethod: flow.codeChallengeMethod,
    afterCallbackRedirectUrl: flow.afterCallbackRedirectUrl,
  });
}

/** PROTOCOL.md §4.7: a known error travels to the app in the query of its error redirect. */
function errorRedirectUrl(flow: OAuthOuterStateRow, error: KnownError): string {
  const target = new URL(flow.errorRedirectUrl ?? flow.redirectUri);
  target.searchParams.set("error", "server_error");
  target.searchParams.set("error_description", error.message);
  target.searchParams.set("errorCode", error.code);
  target.searchParams.set("message", error.message);
  target.searchParams.set("details", JSON.stringify(error.details ?? {}));
  return target.toString();
}

export async function handleCallback(
  deps: AppDeps,
  providerId: string,
  fields: CallbackFields,
  request: Request,
  ip: string | null,
): Promise<Response> {
  if (!fields.state) throw new StatusError(400, INVALID_STATE);
  const [flow] = await deps.db
    .select()
    .from(oauthOuterStates)
    .where(eq(oauthOuterStates.stateHash, sha256Hex(fields.state)))
    .limit(1);
  if (!flow || flow.providerId !== providerId) throw new StatusError(400, INVALID_STATE);
  if (flow.expiresAt.getTime() <= Date.now()) throw knownError("OUTER_OAUTH_TIMEOUT");
  const cookieName = `${INNER_COOKIE_PREFIX}${fields.state}`;
  // The cookie proves this browser started the flow, so a victim cannot be made to finish an attacker's sign-in.
  if (flow.responseMode === "redirect" && !hasCookie(request, cookieName)) {
    throw new StatusError(
      400,
      "The OAuth sign-in cookie is missing: the sign-in must finish in the browser that started it. Please sign in again.",
    );
  }
  if (!fields.code && !fields.error) {
    throw new StatusError(400, "The OAuth provider's callback carries neither a code nor an error.");
  }
  const claimed = await deps.db
    .delete(oauthOuterStates)
    .where(eq(oauthOuterStates.stateHash, flow.stateHash))
    .returning({ stateHash: oauthOuterStates.stateHash });
  if (claimed.length === 0) throw new StatusError(400, INVALID_STATE);

  const headers = new Headers({ "content-type": "application/json; charset=utf-8" });
  if (flow.responseMode === "redirect") {
    headers.set(
      "set-cookie",
      [`${cookieName}=`, "Path=/", "Max-Age=0", ...stateCookieAttributes(deps.env.baseUrl, false)].join("; "),
    );
  }
  try {
    const code = await finishFlow(deps, flow, fields, ip);
    const target = new URL(flow.redirectUri);
    target.searchParams.set("code", code);
    target.searchParams.set("state", flow.clientState);
    headers.set("location", target.toString());
  } catch (error) {
    if (!(error instanceof KnownError)) throw error;
    headers.set("location", errorRedirectUrl(flow, error));
  }
  return new Response("{}", { status: 303, headers });
}

const params = z.strictObject({ provider_id: z.string().min(1).max(100) });
const description = "303 to the app's redirect_uri with `code` and `state`, or to its error redirect";

export const callbackRoutes = [
  defineRoute({
    method: "GET",
    path: "/auth/oauth/callback/:provider_id",
    summary:
      "OAuth provider callback: finishes the sign-in and redirects to the app with an authorization code",
    tags: ["OAuth"],
    // Called by the provider's redirect; the flow is authenticated by its inner state and cookie.
    access: "public",
    request: { params, query: callbackFields },
    response: { raw: true, description },
    handler: ({ deps, params, query, request, clientIp }) =>
      handleCallback(deps, params.provider_id, query, request, clientIp),
  }),
  defineRoute({
    method: "POST",
    path: "/auth/oauth/callback/:provider_id",
    summary: "OAuth provider callback with response_mode=form_post (Apple)",
    tags: ["OAuth"],
    access: "public",
    request: { params, query: callbackFields, body: callbackFields.optional() },
    response: { raw: true, description },
    handler: ({ deps, params, query, body, request, clientIp }) =>
      handleCallback(deps, params.provider_id, { ...query, ...body }, request, clientIp),
  }),
];
