import { expect } from "vitest";
import {
  authorizeQuery,
  type FlowOptions,
  signInAtDevProvider,
} from "../../../server/src/features/oauth/test-support.ts";
import type { TestProject } from "../../../server/src/testing/harness.ts";
import type { ProjectKeys, RunningGatehouse } from "./gatehouse-server.ts";

/**
 * The OAuth sign-in an app's browser would make, driven over real HTTP from Node: Gatehouse's authorize endpoint,
 * the development provider's sign-in form (typing `email`), Gatehouse's callback, and the code exchange. Gives the
 * session's tokens, for handing to an app's token store, and the provider's issuer, to ask it about its tokens.
 */
export async function signInThroughDevProvider(
  gh: RunningGatehouse,
  project: { id: string; keys: ProjectKeys },
  email: string,
  options: Pick<FlowOptions, "providerId" | "providerScope"> = {},
) {
  const { query, verifier, state, redirectUri } = authorizeQuery(project as TestProject, options);
  const authorize = await fetch(
    `${gh.baseUrl}/api/v1/auth/oauth/authorize/${options.providerId ?? "github"}?${query}`,
    { redirect: "manual" },
  );
  expect(authorize.status, await authorize.clone().text()).toBe(307);
  const providerUrl = authorize.headers.get("location")!;
  const innerCookie = (authorize.headers.get("set-cookie") ?? "").split(";")[0]!;

  // The provider sends the browser to the server's public URL; this server listens elsewhere.
  const callback = await signInAtDevProvider(providerUrl, email);
  const delivered = await fetch(`${gh.baseUrl}${callback.pathname}${callback.search}`, {
    headers: { cookie: innerCookie },
    redirect: "manual",
  });
  expect(delivered.status, await delivered.clone().text()).toBe(303);
  const appRedirect = new URL(delivered.headers.get("location")!);
  expect(appRedirect.searchParams.get("state")).toBe(state);

  const exchanged = await fetch(`${gh.baseUrl}/api/v1/auth/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code: appRedirect.searchParams.get("code") ?? "",
      redirect_uri: redirectUri,
      code_verifier: verifier,
      client_id: project.id,
      client_secret: project.keys.publishableClientKey,
    }),
  });
  const tokens = (await exchanged.json()) as { access_token: string; refresh_token: string };
  expect(exchanged.status, JSON.stringify(tokens)).toBe(200);
  return {
    accessToken: tokens.access_token,
    refreshToken: tokens.refresh_token,
    issuer: new URL(providerUrl).origin,
  };
}
