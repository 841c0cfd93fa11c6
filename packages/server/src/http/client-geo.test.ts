/**
 * Location from a trusted proxy's headers (PROTOCOL-EXTRA §8.10), only when GATEHOUSE_TRUST_PROXY trusts the proxy:
 * the user's country, sign-up rules on `countryCode`, the rule tester and the session's location, each sent the way
 * a browser behind Vercel or Cloudflare reaches the server.
 */
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { events } from "../features/events/schema.ts";
import { configureRules } from "../features/sign-up-rules/test-support.ts";
import { createTestServer, type TestProject, type TestServer } from "../testing/harness.ts";
import { expectKnownError, uniqueEmail } from "../testing/known-errors.ts";
import { parseProxyTrust } from "./client-ip.ts";

/** An address the bundled GeoIP data places in Great Britain: the headers must win over it. */
const GB_IP = "81.2.69.142";
const BROWSER = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 Safari/605.1.15";
const VERCEL_MUNICH = {
  "x-vercel-ip-country": "DE",
  "x-vercel-ip-country-region": "BY",
  "x-vercel-ip-city": "M%C3%BCnchen",
  "x-vercel-ip-latitude": "48.1374",
  "x-vercel-ip-longitude": "11.5755",
  "x-vercel-ip-timezone": "Europe/Berlin",
};
const MUNICH = {
  ip: GB_IP,
  countryCode: "DE",
  regionCode: "BY",
  cityName: "München",
  latitude: 48.1374,
  longitude: 11.5755,
  tzIdentifier: "Europe/Berlin",
};

type Headers = Record<string, string>;

/** A browser's request through the proxy: its address in x-forwarded-for, plus what the proxy adds. */
const fromBrowser = (extra: Headers = {}): Headers => ({
  "user-agent": BROWSER,
  "x-forwarded-for": GB_IP,
  ...extra,
});

function setUp(trustProxy: string | undefined) {
  const context = {} as { server: TestServer; project: TestProject };
  beforeAll(async () => {
    context.server = await createTestServer({ trustProxy: parseProxyTrust(trustProxy) });
    context.project = await context.server.createProject("Geo headers");
  });
  afterAll(() => context.server.close());
  return context;
}

async function signUp(server: TestServer, project: TestProject, headers: Headers) {
  return server.request("/api/v1/auth/password/sign-up", {
    method: "POST",
    headers: project.headers("client", headers),
    body: { email: uniqueEmail("geo"), password: "correct horse battery" },
  });
}

async function countryOfUser(server: TestServer, project: TestProject, userId: string) {
  const user = await server.request(`/api/v1/users/${userId}`, { headers: project.headers("server") });
  expect(user.status, user.text).toBe(200);
  return user.body.country_code as string | null;
}

async function sessionLocation(server: TestServer, project: TestProject, accessToken: string) {
  await server.deps.activity.flush();
  const list = await server.request("/api/v1/auth/sessions?user_id=me", {
    headers: project.headers("client", { "x-stack-access-token": accessToken }),
  });
  expect(list.status, list.text).toBe(200);
  expect(list.body.items).toHaveLength(1);
  return list.body.items[0].last_used_at_end_user_ip_info;
}

describe("behind a trusted proxy (GATEHOUSE_TRUST_PROXY=1)", () => {
  const ctx = setUp("1");

  it("takes the user's country and the session's location from Vercel's headers", async () => {
    const response = await signUp(ctx.server, ctx.project, fromBrowser(VERCEL_MUNICH));
    expect(response.status, response.text).toBe(200);
    expect(await countryOfUser(ctx.server, ctx.project, response.body.user_id)).toBe("DE");
    expect(await sessionLocation(ctx.server, ctx.project, response.body.access_token)).toEqual(MUNICH);
  });

  it("updates the session's location when it is refreshed from elsewhere", async () => {
    const response = await signUp(ctx.server, ctx.project, fromBrowser(VERCEL_MUNICH));
    const refreshed = await ctx.server.request("/api/v1/auth/sessions/current/refresh", {
      method: "POST",
      headers: ctx.project.headers(
        "client",
        fromBrowser({ "x-stack-refresh-token": response.body.refresh_token, "cf-ipcountry": "FR" }),
      ),
    });
    expect(refreshed.status, refreshed.text).toBe(200);
    // The refresh's activity event (what the metrics' users_by_country count) carries the proxy's country too.
    await ctx.server.deps.activity.flush();
    const [event] = await ctx.server.deps.db
      .select({ countryCode: events.countryCode, data: events.data })
      .from(events)
      .where(and(eq(events.userId, response.body.user_id), eq(events.type, "$token-refresh")));
    expect(event).toMatchObject({ countryCode: "FR", data: { ip_info: { ip: GB_IP, country_code: "FR" } } });
    expect(await sessionLocation(ctx.server, ctx.project, response.body.access_token)).toEqual({
      ip: GB_IP,
      countryCode: "FR",
      regionCode: null,
      cityName: null,
      latitude: null,
      longitude: null,
      tzIdentifier: null,
    });
  });

  it("takes Cloudflare's country, and skips its XX for unknown", async () => {
    const cloudflare = await signUp(ctx.server, ctx.project, fromBrowser({ "cf-ipcountry": "jp" }));
    expect(await countryOfUser(ctx.server, ctx.project, cloudflare.body.user_id)).toBe("JP");
    const unknown = await signUp(ctx.server, ctx.project, fromBrowser({ "cf-ipcountry": "XX" }));
    expect(await countryOfUser(ctx.server, ctx.project, unknown.body.user_id)).toBe("GB");
  });

  it("ignores the headers on requests that are not a browser's, as the reference does", async () => {
    const response = await signUp(ctx.server, ctx.project, {
      ...fromBrowser(VERCEL_MUNICH),
      "user-agent": "node-fetch/1.0",
    });
    expect(await countryOfUser(ctx.server, ctx.project, response.body.user_id)).toBe("GB");
    expect(await sessionLocation(ctx.server, ctx.project, response.body.access_token)).toMatchObject({
      countryCode: "GB",
      regionCode: null,
    });
  });

  it("feeds sign-up rules on countryCode and the rule tester", async () => {
    const project = await ctx.server.createProject("Geo rules");
    await configureRules(project, {
      "no-germany": { condition: 'countryCode == "DE"', action: "reject", message: "Not here" },
    });
    expectKnownError(await signUp(ctx.server, project, fromBrowser(VERCEL_MUNICH)), 403, "SIGN_UP_REJECTED");
    const elsewhere = await signUp(ctx.server, project, fromBrowser({ "x-vercel-ip-country": "AT" }));
    expect(elsewhere.status, elsewhere.text).toBe(200);

    const tested = await ctx.server.request("/api/v1/internal/sign-up-rules-test", {
      method: "POST",
      headers: project.headers("admin", fromBrowser(VERCEL_MUNICH)),
      body: {
        email: "someone@example.org",
        auth_method: "password",
        oauth_provider: null,
        country_code: null,
      },
    });
    expect(tested.status, tested.text).toBe(200);
    expect(tested.body.context.country_code).toBe("DE");
    expect(tested.body.outcome).toMatchObject({ should_allow: false, decision: "reject" });
  });
});

describe("without GATEHOUSE_TRUST_PROXY", () => {
  const ctx = setUp(undefined);

  it("ignores the headers: anyone could send them", async () => {
    const response = await signUp(ctx.server, ctx.project, fromBrowser(VERCEL_MUNICH));
    expect(response.status, response.text).toBe(200);
    // Nor is x-forwarded-for read, so the request has no address to locate.
    expect(await countryOfUser(ctx.server, ctx.project, response.body.user_id)).toBeNull();
    expect(await sessionLocation(ctx.server, ctx.project, response.body.access_token)).toBeUndefined();
  });
});

describe("with a list of proxies, from a peer that is not one", () => {
  // app.request() has no TCP peer, so the request did not come through 10.0.0.0/8.
  const ctx = setUp("10.0.0.0/8");

  it("ignores the headers", async () => {
    const project = ctx.project;
    await configureRules(project, { "no-germany": { condition: 'countryCode == "DE"', action: "reject" } });
    const response = await signUp(ctx.server, project, fromBrowser(VERCEL_MUNICH));
    expect(response.status, response.text).toBe(200);
    expect(await countryOfUser(ctx.server, project, response.body.user_id)).toBeNull();
  });
});
