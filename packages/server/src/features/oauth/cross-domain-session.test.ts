/**
 * PROTOCOL-EXTRA.md §8.2: the hand-off is bound to the caller's session. The refresh token must come with the
 * access token (as the SDK sends both), the checks answer in the reference's order, and the code exchanges for that
 * same session, whose expiry starts over.
 */
import { createHash, randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
import { expectKnownError, expectPlainError, uniqueEmail } from "../../testing/known-errors.ts";
import { expireRows } from "../../testing/time.ts";
import { createSignedInUser } from "../../testing/users.ts";
import { getRenderedConfig } from "../projects/config-store.ts";
import { sessions } from "../sessions/schema.ts";
import { issueTokens } from "../sessions/service.ts";
import { exchangeCode } from "./test-support.ts";

const TARGET = "https://docs.example.com/handler/oauth-callback";
const YEAR_MS = 365 * 24 * 3600 * 1000;

let server: TestServer;
let project: TestProject;
let other: TestProject;

beforeAll(async () => {
  server = await createTestServer();
  project = await server.createProject("Hand-off sessions");
  other = await server.createProject("Elsewhere");
  await project.configure({ "domains.trustedDomains.docs": { baseUrl: "https://docs.example.com" } });
});
afterAll(() => server.close());

type Session = Awaited<ReturnType<typeof createSignedInUser>>;
const signedIn = (target = project): Promise<Session> =>
  createSignedInUser(server, target.id, { primaryEmail: uniqueEmail("handoff") });

function pkce() {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

function authorize(headers: Record<string, string>, challenge: string, body: Record<string, unknown> = {}) {
  return server.request("/api/v1/auth/oauth/cross-domain/authorize", {
    method: "POST",
    headers,
    body: { redirect_uri: TARGET, state: "s-1", code_challenge: challenge, ...body },
  });
}

const headersOf = (accessToken: string, refreshToken?: string) =>
  project.headers("client", {
    "x-stack-access-token": accessToken,
    ...(refreshToken === undefined ? {} : { "x-stack-refresh-token": refreshToken }),
  });

async function sessionRow(refreshTokenOwner: Session) {
  const claims = JSON.parse(
    Buffer.from(refreshTokenOwner.accessToken.split(".")[1]!, "base64url").toString(),
  );
  const [row] = await server.deps.db.select().from(sessions).where(eq(sessions.id, claims.refresh_token_id));
  return row;
}

describe("POST /auth/oauth/cross-domain/authorize", () => {
  it("needs the current refresh token, answering plain 400 without it", async () => {
    const ada = await signedIn();
    expectPlainError(
      await authorize(headersOf(ada.accessToken), pkce().challenge),
      400,
      "Cross-domain auth handoff requires passing the current refresh token.",
    );
  });

  it("answers plain 401 for a refresh token of the user's other session, another user or project, or an unknown one", async () => {
    const ada = await signedIn();
    const config = await getRenderedConfig(server.deps, project.id);
    const adaElsewhere = await issueTokens(server.deps, project.id, ada.user, config);
    const bob = await signedIn();
    const foreign = await signedIn(other);
    const mismatch = "Cross-domain auth handoff refresh token does not match the authenticated session.";
    for (const refreshToken of [adaElsewhere.refresh_token, bob.refreshToken, foreign.refreshToken, "nope"]) {
      expectPlainError(
        await authorize(headersOf(ada.accessToken, refreshToken), pkce().challenge),
        401,
        mismatch,
      );
    }
  });

  it("answers plain 401 once the session has expired", async () => {
    const ada = await signedIn();
    const row = await sessionRow(ada);
    await expireRows(server, sessions, eq(sessions.id, row!.id));
    expectPlainError(
      await authorize(headersOf(ada.accessToken, ada.refreshToken), pkce().challenge),
      401,
      "Cross-domain auth handoff refresh token is not valid.",
    );
  });

  it("asks for a user before anything else, and for the token before the URL", async () => {
    expectKnownError(
      await authorize(project.headers("client", { "x-stack-refresh-token": "x" }), pkce().challenge),
      401,
      "USER_AUTHENTICATION_REQUIRED",
    );
    const ada = await signedIn();
    expectPlainError(
      await authorize(headersOf(ada.accessToken), pkce().challenge, {
        redirect_uri: "https://evil.example.org/cb",
      }),
      400,
      "Cross-domain auth handoff requires passing the current refresh token.",
    );
    expectKnownError(
      await authorize(headersOf(ada.accessToken, ada.refreshToken), pkce().challenge, {
        redirect_uri: "https://evil.example.org/cb",
      }),
      400,
      "REDIRECT_URL_NOT_WHITELISTED",
    );
  });

  it("takes a state of at most 512 characters", async () => {
    const ada = await signedIn();
    const headers = headersOf(ada.accessToken, ada.refreshToken);
    expect((await authorize(headers, pkce().challenge, { state: "s".repeat(512) })).status).toBe(200);
    expectKnownError(
      await authorize(headers, pkce().challenge, { state: "s".repeat(513) }),
      400,
      "SCHEMA_ERROR",
    );
  });
});

describe("the exchange", () => {
  it("answers the handing-off session's own refresh token, with its expiry reset to a year", async () => {
    const ada = await signedIn();
    const before = await sessionRow(ada);
    await server.deps.db
      .update(sessions)
      .set({ expiresAt: new Date(Date.now() + 3600_000) })
      .where(eq(sessions.id, before!.id));
    const { verifier, challenge } = pkce();
    const handed = await authorize(headersOf(ada.accessToken, ada.refreshToken), challenge);
    expect(handed.status, handed.text).toBe(200);
    const code = new URL(handed.body.redirect_url).searchParams.get("code")!;
    const sessionCount = async () =>
      (await server.deps.db.select().from(sessions).where(eq(sessions.userId, ada.user.id))).length;
    const count = await sessionCount();

    const tokens = await exchangeCode(server, project, { code, verifier, redirectUri: TARGET });
    expect(tokens.status, tokens.text).toBe(200);
    expect(tokens.body).toMatchObject({ refresh_token: ada.refreshToken, is_new_user: false });
    expect(tokens.body.after_callback_redirect_url).toBeNull();
    expect(await sessionCount()).toBe(count);
    const after = await sessionRow(ada);
    expect(Math.abs(after!.expiresAt!.getTime() - (Date.now() + YEAR_MS))).toBeLessThan(60_000);
    const claims = JSON.parse(Buffer.from(tokens.body.access_token.split(".")[1], "base64url").toString());
    expect(claims.refresh_token_id).toBe(before!.id);
  });

  it("gives nothing once the session has been signed out", async () => {
    const ada = await signedIn();
    const { verifier, challenge } = pkce();
    const handed = await authorize(headersOf(ada.accessToken, ada.refreshToken), challenge);
    const code = new URL(handed.body.redirect_url).searchParams.get("code")!;
    await server.deps.db.delete(sessions).where(eq(sessions.id, (await sessionRow(ada))!.id));
    expectKnownError(
      await exchangeCode(server, project, { code, verifier, redirectUri: TARGET }),
      400,
      "INVALID_AUTHORIZATION_CODE",
    );
  });
});
