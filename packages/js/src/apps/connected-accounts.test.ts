import { isKnownError } from "@gatehouse/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { devProviderEmail } from "../../../server/src/features/oauth/dev-provider.ts";
import { signInOverHttp } from "../../../server/src/features/oauth/test-support.ts";
import { appsFor, uniqueEmail } from "../testing/apps.ts";
import { type RunningGatehouse, startGatehouse } from "../testing/gatehouse-server.ts";

/**
 * Connected accounts through the SDK: a user signed in with a "standard" GitHub whose endpoints are the server's
 * development OpenID provider (client id MOCK), and the provider access tokens the app gets for them.
 */
let gh: RunningGatehouse;
let project: Awaited<ReturnType<RunningGatehouse["createProject"]>>;
let apps: ReturnType<typeof appsFor>;

beforeAll(async () => {
  gh = await startGatehouse();
  project = await gh.createProject("Connected accounts");
  apps = appsFor(gh, project);
  const admin = await apps.admin().getProject();
  await admin.updateConfig({
    "auth.oauth.providers.github": { isShared: false, clientId: "MOCK", clientSecret: "MOCK" },
    "auth.oauth.providers.discord": { isShared: false, clientId: "MOCK", clientSecret: "MOCK" },
  });
});
afterAll(() => gh?.close());

/** The provider's own view of an access token: its userinfo endpoint. */
async function providerUser(issuer: string, accessToken: string) {
  const response = await fetch(`${issuer}/me`, { headers: { authorization: `Bearer ${accessToken}` } });
  return response.status === 200 ? ((await response.json()) as { sub: string }) : { status: response.status };
}

async function signedInWithGitHub(providerScope?: string) {
  const email = uniqueEmail("connected");
  const session = await signInOverHttp(gh.baseUrl, project, email, providerScope ? { providerScope } : {});
  const app = apps.client({
    tokenStore: { accessToken: session.accessToken, refreshToken: session.refreshToken },
  });
  return { email, issuer: session.providerIssuer, user: await app.getUser({ or: "throw" }) };
}

describe("connected accounts", () => {
  it("hands out a provider access token that works at the provider", async () => {
    const { email, issuer, user } = await signedInWithGitHub();
    expect(user.primaryEmail).toBe(devProviderEmail(email));
    const connection = await user.getConnectedAccount("github");
    expect(connection).not.toBeNull();
    expect(connection!.id).toBe("github");
    const { accessToken } = await connection!.getAccessToken();
    expect(await providerUser(issuer, accessToken)).toMatchObject({ sub: email });
  });

  it("gives null for scopes the grant lacks, and grants them when asked for at sign-in", async () => {
    const plain = await signedInWithGitHub();
    expect(await plain.user.getConnectedAccount("github", { scopes: ["dev:read"] })).toBeNull();
    const scoped = await signedInWithGitHub("dev:read");
    const connection = await scoped.user.getConnectedAccount("github", { scopes: ["dev:read"] });
    const { accessToken } = await connection!.getAccessToken();
    expect(await providerUser(scoped.issuer, accessToken)).toMatchObject({ sub: scoped.email });
  });

  it("gives null for a provider the user has not connected, and an error for one the project lacks", async () => {
    const { user } = await signedInWithGitHub();
    expect(await user.getConnectedAccount("discord")).toBeNull();
    await expect(user.getConnectedAccount("google")).rejects.toSatisfy((error) =>
      isKnownError(error, "OAUTH_PROVIDER_NOT_FOUND_OR_NOT_ENABLED"),
    );

    const passwordUser = apps.client();
    await passwordUser.signUpWithCredential({ email: uniqueEmail(), password: "correct horse battery" });
    const current = await passwordUser.getUser({ or: "throw" });
    expect(await current.getConnectedAccount("github")).toBeNull();
  });
});
