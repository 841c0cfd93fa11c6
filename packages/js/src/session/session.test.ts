import { describe, expect, it } from "vitest";
import { InvalidServerResponseError } from "../http/errors.ts";
import { fakeAccessToken } from "../testing/tokens.ts";
import { decodeAccessToken, millisUntilExpiry } from "./jwt.ts";
import { Session } from "./session.ts";
import {
  InMemoryTokenStore,
  parseCookieHeader,
  tokensFromCookies,
  tokensFromRequest,
} from "./token-store.ts";

function setup(initial: { accessToken: string | null; refreshToken: string | null }) {
  let now = Date.now();
  const refreshed: string[] = [];
  let answer: (refreshToken: string) => Promise<string | null> = async () =>
    fakeAccessToken({}, { now, lifetimeSeconds: 600 });
  const store = new InMemoryTokenStore("memory", initial);
  const session = new Session(
    store,
    (refreshToken) => {
      refreshed.push(refreshToken);
      return answer(refreshToken);
    },
    () => now,
  );
  return {
    store,
    session,
    refreshed,
    advance: (ms: number) => {
      now += ms;
    },
    now: () => now,
    answerWith: (fn: typeof answer) => {
      answer = fn;
    },
  };
}

describe("Session.getTokens (SPEC.md §4 session tokens)", () => {
  it("hands out a stored access token that has more than 20 s left, without refreshing", async () => {
    const access = fakeAccessToken({}, { lifetimeSeconds: 600 });
    const { session, refreshed } = setup({ accessToken: access, refreshToken: "rt" });
    expect(await session.getTokens()).toEqual({ accessToken: access, refreshToken: "rt" });
    expect(refreshed).toEqual([]);
  });

  it("refreshes a token within 20 s of expiry, and stores the new one", async () => {
    const t = setup({ accessToken: null, refreshToken: "rt" });
    const access = fakeAccessToken({}, { now: t.now(), lifetimeSeconds: 60 });
    t.store.write({ accessToken: access, refreshToken: "rt" });
    t.advance(39_000);
    expect((await t.session.getTokens()).accessToken).toBe(access);
    t.advance(2_000);
    const fresh = await t.session.getTokens();
    expect(fresh.accessToken).not.toBe(access);
    expect(t.refreshed).toEqual(["rt"]);
    expect(t.store.read()).toEqual(fresh);
  });

  it("refreshes a missing, unparsable or expired access token", async () => {
    for (const accessToken of [null, "garbage", fakeAccessToken({}, { lifetimeSeconds: -5 })]) {
      const { session, refreshed } = setup({ accessToken, refreshToken: "rt" });
      const tokens = await session.getTokens();
      expect(tokens.accessToken).not.toBe(accessToken);
      expect(decodeAccessToken(tokens.accessToken!)).not.toBeNull();
      expect(refreshed).toEqual(["rt"]);
    }
  });

  it("shares one refresh between concurrent callers", async () => {
    const { session, refreshed } = setup({ accessToken: null, refreshToken: "rt" });
    const [a, b, c] = await Promise.all([session.getTokens(), session.getTokens(), session.getTokens()]);
    expect(refreshed).toHaveLength(1);
    expect(a).toEqual(b);
    expect(b).toEqual(c);
  });

  it("clears both tokens when the refresh token is no longer valid (signed out)", async () => {
    const t = setup({ accessToken: "garbage", refreshToken: "revoked" });
    t.answerWith(async () => null);
    expect(await t.session.getTokens()).toEqual({ accessToken: null, refreshToken: null });
    expect(t.store.read()).toEqual({ accessToken: null, refreshToken: null });
  });

  it("does not overwrite a sign-in that happened while a refresh was running", async () => {
    const t = setup({ accessToken: null, refreshToken: "old" });
    let release!: () => void;
    t.answerWith(() => new Promise((resolve) => (release = () => resolve(null))));
    const pending = t.session.getTokens();
    const newAccess = fakeAccessToken();
    t.session.setTokens({ accessToken: newAccess, refreshToken: "new" });
    release();
    await pending;
    expect(t.store.read()).toEqual({ accessToken: newAccess, refreshToken: "new" });
  });

  it("drops an access token that can no longer be used when there is no refresh token", async () => {
    const t = setup({ accessToken: fakeAccessToken({}, { lifetimeSeconds: 10 }), refreshToken: null });
    expect(await t.session.getTokens()).toEqual({ accessToken: null, refreshToken: null });
    expect(t.refreshed).toEqual([]);
  });

  it("refuses a requested validity of 60000 ms or more", async () => {
    const { session } = setup({ accessToken: null, refreshToken: "rt" });
    await expect(session.getTokens(60_000)).rejects.toThrow(/under 60000 ms/);
    await expect(session.getTokens(59_999)).resolves.toBeTruthy();
  });

  it("fails loudly when the server mints tokens too short-lived to use", async () => {
    const t = setup({ accessToken: null, refreshToken: "rt" });
    t.answerWith(async () => fakeAccessToken({}, { now: t.now(), lifetimeSeconds: 15 }));
    await expect(t.session.getTokens()).rejects.toBeInstanceOf(InvalidServerResponseError);
  });

  it("markAccessTokenExpired forgets that token only", async () => {
    const access = fakeAccessToken();
    const t = setup({ accessToken: access, refreshToken: "rt" });
    t.session.markAccessTokenExpired("another");
    expect(t.store.read().accessToken).toBe(access);
    t.session.markAccessTokenExpired(access);
    expect(t.store.read()).toEqual({ accessToken: null, refreshToken: "rt" });
  });
});

describe("token values (SPEC.md §5)", () => {
  it('refuses the string "undefined" as a token', () => {
    expect(() => new InMemoryTokenStore("fixed", { accessToken: "undefined", refreshToken: "x" })).toThrow(
      /cannot be the string "undefined"/,
    );
    const store = new InMemoryTokenStore("memory");
    expect(() => store.write({ accessToken: null, refreshToken: "undefined" })).toThrow(/Refresh token/);
  });

  it("only memory stores are persistent", () => {
    expect(new InMemoryTokenStore("memory").persistent).toBe(true);
    expect(new InMemoryTokenStore("fixed").persistent).toBe(false);
    expect(new InMemoryTokenStore("request").persistent).toBe(false);
  });
});

describe("decodeAccessToken (PROTOCOL.md §5.1)", () => {
  it("accepts the full claim set, with exp optional", () => {
    expect(decodeAccessToken(fakeAccessToken())?.role).toBe("authenticated");
    const claims = decodeAccessToken(fakeAccessToken({ exp: undefined }))!;
    expect(millisUntilExpiry(claims, Date.now())).toBe(Number.POSITIVE_INFINITY);
  });

  it("rejects tokens with a missing or mistyped claim", () => {
    for (const broken of [
      { role: "admin" },
      { sub: 42 },
      { name: undefined },
      { email_verified: "yes" },
      { restricted_reason: { kind: "x" } },
      { exp: "soon" },
    ]) {
      expect(decodeAccessToken(fakeAccessToken(broken)), JSON.stringify(broken)).toBeNull();
    }
    expect(decodeAccessToken("a.b")).toBeNull();
    expect(decodeAccessToken("!!!.???.x")).toBeNull();
  });
});

describe("tokens from requests and cookies (PROTOCOL.md §1.4)", () => {
  const projectId = "internal";

  it("reads the x-stack-auth header, from a Fetch Request or a Node headers record", () => {
    const json = JSON.stringify({ accessToken: "a", refreshToken: "r" });
    expect(
      tokensFromRequest(new Request("http://x", { headers: { "x-stack-auth": json } }), projectId),
    ).toEqual({
      accessToken: "a",
      refreshToken: "r",
    });
    expect(tokensFromRequest({ headers: { "X-Stack-Auth": json } }, projectId)).toEqual({
      accessToken: "a",
      refreshToken: "r",
    });
    expect(() => tokensFromRequest({ headers: { "x-stack-auth": "{" } }, projectId)).toThrow(/must be JSON/);
  });

  it("reads the Bearer stackauth_ authorization header", () => {
    const value = Buffer.from(JSON.stringify({ accessToken: "a2", refreshToken: "r2" })).toString("base64");
    expect(tokensFromRequest({ headers: { authorization: `Bearer stackauth_${value}` } }, projectId)).toEqual(
      {
        accessToken: "a2",
        refreshToken: "r2",
      },
    );
  });

  it("falls back to the SDK's cookies, taking the access token only if it belongs to the refresh token", () => {
    const pair = encodeURIComponent(JSON.stringify(["r3", "a3"]));
    const cookie = `other=1; stack-refresh-internal=r3; stack-access=${pair}`;
    expect(tokensFromRequest({ headers: { cookie } }, projectId)).toEqual({
      accessToken: "a3",
      refreshToken: "r3",
    });
    const stale = parseCookieHeader(`stack-refresh-internal=r4; stack-access=${pair}`);
    expect(tokensFromCookies(stale, projectId)).toEqual({ accessToken: null, refreshToken: "r4" });
    expect(tokensFromRequest({ headers: {} }, projectId)).toEqual({ accessToken: null, refreshToken: null });
  });
});
