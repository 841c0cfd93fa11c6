import { gzipSync } from "node:zlib";
import { eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { randomUuid } from "../../crypto/index.ts";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
import { setClock, useRealClock } from "../../testing/time.ts";
import { createSignedInUser } from "../../testing/users.ts";
import { passkeyCredentials } from "../auth-passkey/schema.ts";
import { sentEmails } from "../emails/schema.ts";
import { oauthAccounts } from "../oauth/schema.ts";
import { productPurchases } from "../payments/schema.ts";
import { teams } from "../teams/schema.ts";
import { users } from "../users/schema.ts";

/**
 * Every figure of GET /internal/metrics against a project this file builds day by day: users signed up on given
 * days (their rows' timestamps), token refreshes made through the API under a set clock from addresses in given
 * countries, sign-in methods, emails in each status, and page views sent by a browser session.
 */

const DAY = 24 * 3600 * 1000;
const TODAY = Date.UTC(2030, 5, 15);
const NOW = TODAY + 12 * 3600 * 1000;
/** `hour` o'clock UTC, `daysAgo` days before today. */
const at = (daysAgo: number, hour = 10) => TODAY - daysAgo * DAY + hour * 3600 * 1000;
const dateOf = (daysAgo: number) => new Date(TODAY - daysAgo * DAY).toISOString().slice(0, 10);
const IP = { GB: "81.2.69.142", DE: "5.9.0.1", US: "8.8.8.8" };

let server: TestServer;
let project: TestProject;
const people: Record<"a" | "b" | "c" | "d" | "e", { id: string; refreshToken: string; accessToken: string }> =
  {} as never;
let teamId: string;

/** The 31-point series with `values` (days ago → value) and zeros elsewhere. */
function seriesOf(values: Record<number, number>) {
  return Array.from({ length: 31 }, (_, index) => {
    const daysAgo = 30 - index;
    return { date: dateOf(daysAgo), activity: values[daysAgo] ?? 0 };
  });
}

async function refresh(person: keyof typeof people, daysAgo: number, ip: string, hour = 10, atMs?: number) {
  setClock(atMs ?? at(daysAgo, hour));
  const response = await server.request("/api/v1/auth/sessions/current/refresh", {
    method: "POST",
    headers: project.headers("client", {
      "x-stack-refresh-token": people[person].refreshToken,
      "x-forwarded-for": ip,
    }),
  });
  expect(response.status, response.text).toBe(200);
}

async function metrics(includeAnonymous?: boolean) {
  setClock(NOW);
  const query = includeAnonymous === undefined ? "" : `?include_anonymous=${includeAnonymous}`;
  const response = await server.request(`/api/v1/internal/metrics${query}`, {
    headers: project.headers("admin"),
  });
  expect(response.status, response.text).toBe(200);
  return response.body;
}

async function emailRow(daysAgo: number, status: (typeof sentEmails.$inferSelect)["status"], extra = {}) {
  const id = randomUuid();
  await server.deps.db.insert(sentEmails).values({
    projectId: project.id,
    id,
    to: ["someone@example.com"],
    kind: "custom",
    status,
    subject: `Email ${status}`,
    createdAt: new Date(at(daysAgo, 9)),
    ...extra,
  });
  return id;
}

beforeAll(async () => {
  server = await createTestServer({ trustProxy: { hops: 1 } });
  project = await server.createProject("Metrics");
  // Sessions are created under the test's clock, so they are live on every day it visits.
  setClock(NOW);
  const signedUp: Record<keyof typeof people, number> = { a: 0, b: 2, c: 40, d: 1, e: 5 };
  const inputs = {
    a: { primaryEmail: "a@example.com", primaryEmailVerified: true, passwordHash: "$argon2id$stand-in" },
    b: { primaryEmail: "b@example.com" },
    c: { primaryEmail: "c@example.com", primaryEmailVerified: true },
    d: { isAnonymous: true },
    e: { otpAuthEnabled: true },
  };
  for (const key of Object.keys(inputs) as (keyof typeof people)[]) {
    const { user, refreshToken, accessToken } = await createSignedInUser(server, project.id, inputs[key]);
    people[key] = { id: user.id, refreshToken, accessToken };
    await server.deps.db
      .update(users)
      .set({ signedUpAt: new Date(at(signedUp[key], 8)), lastActiveAt: new Date(at(60)) })
      .where(eq(users.id, user.id));
  }
  // A and B work in one team, created ten days ago: its activity is theirs.
  teamId = randomUuid();
  await server.deps.db
    .insert(teams)
    .values({ projectId: project.id, id: teamId, displayName: "Crew", createdAt: new Date(at(10)) });
  for (const key of ["a", "b"] as const) {
    await server.deps.db.update(users).set({ selectedTeamId: teamId }).where(eq(users.id, people[key].id));
  }
  await server.deps.db.insert(passkeyCredentials).values({
    projectId: project.id,
    id: randomUuid(),
    userId: people.b.id,
    credentialId: "credential-b",
    publicKey: "key",
  });
  await server.deps.db.insert(oauthAccounts).values([
    {
      projectId: project.id,
      id: randomUuid(),
      userId: people.c.id,
      providerConfigId: "GitHub",
      providerAccountId: "1",
    },
    {
      projectId: project.id,
      id: randomUuid(),
      userId: people.c.id,
      providerConfigId: "google",
      providerAccountId: "2",
      allowSignIn: false,
    },
  ]);

  // Activity, oldest first. E was last seen before the window; C comes back after a gap and moves country.
  await refresh("e", 35, IP.US);
  await refresh("c", 3, IP.US);
  await refresh("b", 2, IP.DE);
  await refresh("b", 1, IP.DE, 10);
  await refresh("c", 1, IP.GB, 11);
  await refresh("a", 0, IP.GB, 1);
  await refresh("d", 0, IP.US, 0, NOW - 120_000);
  await refresh("a", 0, IP.GB, 0, NOW - 60_000);
  await server.deps.activity.flush();

  await emailRow(0, "sent", { sentAt: new Date(at(0, 9)) });
  await emailRow(0, "queued");
  await emailRow(0, "skipped", { subject: "" });
  await emailRow(1, "failed", { failedAt: new Date(at(1, 9)) });
  await emailRow(2, "render_error", { isPaused: true });
  await emailRow(40, "sent", { sentAt: new Date(at(40, 9)) });
  useRealClock();
});
afterEach(() => useRealClock());
afterAll(() => server.close());

describe("GET /internal/metrics", () => {
  it("counts users, sign-ups per day, teams and sign-in methods", async () => {
    const body = await metrics();
    expect(body.total_users).toBe(4);
    expect(body.daily_users).toEqual(seriesOf({ 0: 1, 2: 1, 5: 1 }));
    expect(body.auth_overview).toMatchObject({
      total_users_filtered: 4,
      verified_users: 2,
      unverified_users: 2,
      anonymous_users: 1,
      total_teams: 1,
    });
    expect(body.login_methods).toEqual([
      { method: "github", count: 1 },
      { method: "otp", count: 1 },
      { method: "passkey", count: 1 },
      { method: "password", count: 1 },
    ]);
    expect(body.recently_registered.map((user: { id: string }) => user.id)).toEqual(
      ["a", "b", "e", "c"].map((key) => people[key as keyof typeof people].id),
    );
    expect(body.recently_registered[0]).toMatchObject({
      primary_email: "a@example.com",
      signed_up_at_millis: at(0, 8),
      has_password: true,
    });
    expect(body.recently_active.map((user: { id: string }) => user.id)).toEqual(
      ["a", "c", "b", "e"].map((key) => people[key as keyof typeof people].id),
    );
    expect(body.recently_active[0].last_active_at_millis).toBe(NOW - 60_000);
  });

  it("counts daily active users from token refreshes, with new, retained and reactivated", async () => {
    const body = await metrics(false);
    expect(body.daily_active_users).toEqual(seriesOf({ 0: 1, 1: 2, 2: 1, 3: 1 }));
    expect(body.auth_overview.daily_active_users_split).toEqual({
      total: seriesOf({ 0: 1, 1: 2, 2: 1, 3: 1 }),
      new: seriesOf({ 0: 1, 2: 1 }),
      retained: seriesOf({ 1: 1 }),
      reactivated: seriesOf({ 1: 1, 3: 1 }),
    });
    expect(body.auth_overview.daily_active_teams_split).toEqual({
      total: seriesOf({ 0: 1, 1: 1, 2: 1 }),
      new: seriesOf({ 2: 1 }),
      retained: seriesOf({ 0: 1, 1: 1 }),
      reactivated: seriesOf({}),
    });
    expect(body.auth_overview.mau).toBe(3);
    expect(body.users_by_country).toEqual({ GB: 2, DE: 1 });
    expect(body.analytics_overview.online_live).toBe(1);
  });

  it("includes anonymous users when asked", async () => {
    const body = await metrics(true);
    expect(body.total_users).toBe(5);
    expect(body.auth_overview.total_users_filtered).toBe(5);
    expect(body.daily_users).toEqual(seriesOf({ 0: 1, 1: 1, 2: 1, 5: 1 }));
    expect(body.daily_active_users).toEqual(seriesOf({ 0: 2, 1: 2, 2: 1, 3: 1 }));
    expect(body.auth_overview.daily_active_users_split.new).toEqual(seriesOf({ 0: 2, 2: 1 }));
    expect(body.auth_overview.mau).toBe(4);
    expect(body.users_by_country).toEqual({ GB: 2, DE: 1, US: 1 });
    expect(body.analytics_overview.online_live).toBe(2);
    expect(body.recently_active[1].id).toBe(people.d.id);
    // Sign-in methods never filter anonymous users; they are the same either way.
    expect(body.login_methods).toHaveLength(4);
  });

  it("summarises the email outbox of the window", async () => {
    const { email_overview: emails } = await metrics();
    expect(emails.emails_by_status).toEqual({ ok: 2, error: 1, "in-progress": 2 });
    expect(emails.total_emails).toBe(5);
    expect(emails.daily_emails).toEqual(seriesOf({ 0: 3, 1: 1, 2: 1 }));
    expect(emails.daily_emails_by_status.at(-1)).toEqual({
      date: dateOf(0),
      ok: 2,
      error: 0,
      in_progress: 1,
    });
    expect(emails.daily_emails_by_status.at(-3)).toEqual({
      date: dateOf(2),
      ok: 0,
      error: 0,
      in_progress: 1,
    });
    expect(emails.emails_sent).toBe(2);
    expect(emails.deliverability_status).toEqual({ delivered: 1, bounced: 0, error: 1, in_progress: 2 });
    expect(emails.deliverability_rate).toBe(50);
    expect(emails.bounce_rate).toBe(0);
    expect(emails.recent_emails).toHaveLength(6);
    expect(emails.recent_emails.at(-1)).toMatchObject({ status: "SENT", created_at_millis: at(40, 9) });
    expect(emails.recent_emails.map((email: { subject: string }) => email.subject)).toContain("(no subject)");
  });

  it("counts subscriptions and one-time purchases, and the revenue paid through the purchase page", async () => {
    const before = (await metrics()).payments_overview;
    expect(before).toMatchObject({ active_subscription_count: 0, revenue_cents: 0, total_orders: 0 });
    expect(before.daily_subscriptions).toEqual(seriesOf({}));
    const purchase = (daysAgo: number, values: Partial<typeof productPurchases.$inferInsert>) => ({
      projectId: project.id,
      id: randomUuid(),
      customerType: "user" as const,
      customerId: people.a.id,
      productId: "pro",
      product: { display_name: "Pro", customer_type: "user", prices: { monthly: { USD: "29.50" } } },
      priceId: "monthly",
      quantity: 1,
      kind: "subscription" as const,
      source: "purchase_page" as const,
      testMode: false,
      createdAt: new Date(at(daysAgo)),
      ...values,
    });
    await server.deps.db
      .insert(productPurchases)
      .values([
        purchase(2, { quantity: 2 }),
        purchase(40, {}),
        purchase(3, { endsAt: new Date(at(1)) }),
        purchase(5, { kind: "one_time", source: "test_mode", testMode: true }),
        purchase(6, { kind: "one_time", source: "api_grant" }),
        purchase(7, { kind: "one_time", refundedAt: new Date(at(6)) }),
      ]);
    const { payments_overview: payments, analytics_overview: analytics } = await metrics();
    expect(payments).toMatchObject({
      subscriptions_by_status: { active: 2, canceled: 1 },
      active_subscription_count: 2,
      total_one_time_purchases: 3,
      total_orders: 6,
      // 2 × $29.50 and $29.50 twice; the test purchase, the grant and the refunded one are free.
      revenue_cents: 5900 + 2950 + 2950,
      mrr_cents: 5900 + 2950,
      checkout_conversion_rate: 100,
    });
    expect(payments.daily_subscriptions).toEqual(seriesOf({ 2: 1, 3: 1 }));
    expect(analytics.total_revenue_cents).toBe(11800);
    expect(analytics.daily_revenue.find((point: { date: string }) => point.date === dateOf(2))).toEqual({
      date: dateOf(2),
      new_cents: 5900,
      refund_cents: 0,
    });
  });

  it("is for admins only", async () => {
    const response = await server.request("/api/v1/internal/metrics", { headers: project.headers("server") });
    expect(response.status).toBe(401);
  });
});

describe("POST /analytics/events/batch", () => {
  const batch = (events: unknown[]) => ({
    session_replay_segment_id: randomUuid(),
    batch_id: randomUuid(),
    sent_at_ms: NOW,
    events,
  });
  const send = (body: unknown, token: string | null = people.a.accessToken) =>
    server.request("/api/v1/analytics/events/batch", {
      method: "POST",
      headers: project.headers("client", {
        ...(token ? { "x-stack-access-token": token } : {}),
        "x-forwarded-for": IP.GB,
      }),
      body,
    });
  const pageView = (referrer?: string) => ({
    event_type: "$page-view",
    event_at_ms: NOW - 600_000,
    data: { path: "/", ...(referrer ? { referrer } : {}) },
  });

  it("needs the analytics app and a signed-in session", async () => {
    setClock(NOW);
    const disabled = await send(batch([pageView()]));
    expect(disabled.headers.get("x-stack-known-error"), disabled.text).toBe("ANALYTICS_NOT_ENABLED");
    await project.configure({ "apps.installed.analytics.enabled": true });
    const anonymousCaller = await send(batch([pageView()]), null);
    expect(anonymousCaller.headers.get("x-stack-known-error")).toBe("USER_AUTHENTICATION_REQUIRED");
    expect((await send(batch([]))).status).toBe(400);
    expect((await send(batch(Array.from({ length: 501 }, () => pageView())))).status).toBe(400);
  });

  /** The bytes as the official SDK (2.8.102+) sends them from a browser: gzip, application/octet-stream. */
  const sendBytes = (bytes: Uint8Array, headers: Record<string, string> = {}) =>
    server.app.request("/api/v1/analytics/events/batch", {
      method: "POST",
      headers: project.headers("client", {
        "x-stack-access-token": people.a.accessToken,
        "content-type": "application/octet-stream",
        ...headers,
      }),
      body: bytes as unknown as BodyInit,
    });

  it("stores page views and clicks that the metrics then count", async () => {
    setClock(NOW);
    await project.configure({ "apps.installed.analytics.enabled": true });
    const click = { event_type: "$click", event_at_ms: NOW - 500_000, data: { selector: "button" } };
    const response = await send(batch([pageView("https://news.example"), pageView(), click]));
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({ inserted: 3 });
    await server.deps.activity.flush();
    const { analytics_overview: analytics } = await metrics();
    expect(analytics.daily_page_views).toEqual(seriesOf({ 0: 2 }));
    expect(analytics.daily_clicks).toEqual(seriesOf({ 0: 1 }));
    expect(analytics.daily_visitors).toEqual(seriesOf({ 0: 1 }));
    expect(analytics.visitors).toBe(1);
    expect(analytics.top_referrers).toEqual([
      { referrer: "(direct)", visitors: 1 },
      { referrer: "https://news.example", visitors: 1 },
    ]);
    expect(analytics.top_region).toEqual({ country_code: "GB", region_code: null, count: 1 });
  });
  it("takes the official SDK's gzip batches, plain JSON bytes, and content-encoding gzip", async () => {
    setClock(NOW);
    await project.configure({ "apps.installed.analytics.enabled": true });
    const pageViews = async () => {
      await server.deps.activity.flush();
      const { analytics_overview: analytics } = await metrics();
      return (analytics.daily_page_views as { activity: number }[]).reduce(
        (sum, day) => sum + day.activity,
        0,
      );
    };
    const before = await pageViews();
    const json = (events: unknown[]) => new TextEncoder().encode(JSON.stringify(batch(events)));
    const gzipped = await sendBytes(gzipSync(json([pageView(), pageView()])));
    expect(gzipped.status, await gzipped.clone().text()).toBe(200);
    expect(await gzipped.json()).toEqual({ inserted: 2 });
    // A browser without CompressionStream, and a keepalive flush, send the JSON as it is.
    expect((await sendBytes(json([pageView()]))).status).toBe(200);
    const encoded = await server.app.request("/api/v1/analytics/events/batch", {
      method: "POST",
      headers: project.headers("client", {
        "x-stack-access-token": people.a.accessToken,
        "content-type": "application/json",
        "content-encoding": "gzip",
      }),
      body: gzipSync(json([pageView()])) as unknown as BodyInit,
    });
    expect(encoded.status, await encoded.clone().text()).toBe(200);
    expect((await pageViews()) - before).toBe(4);
  });

  it("refuses a gzip bomb, broken gzip and bytes that are not JSON with a 4xx", async () => {
    setClock(NOW);
    await project.configure({ "apps.installed.analytics.enabled": true });
    // 64 MiB of zeros, about 64 KiB compressed: refused while inflating, past 2 MiB.
    const bomb = await sendBytes(gzipSync(new Uint8Array(64 * 1024 * 1024)));
    expect(bomb.status).toBe(413);
    const broken = await sendBytes(new Uint8Array([0x1f, 0x8b, 1, 2, 3, 4]));
    expect(broken.status).toBe(400);
    expect(broken.headers.get("x-stack-known-error")).toBe("BODY_PARSING_ERROR");
    const notJson = await sendBytes(new TextEncoder().encode("not json"));
    expect(notJson.headers.get("x-stack-known-error")).toBe("BODY_PARSING_ERROR");
    const otherEncoding = await sendBytes(new Uint8Array([1, 2, 3]), { "content-encoding": "br" });
    expect(otherEncoding.status).toBe(415);
  });
});
