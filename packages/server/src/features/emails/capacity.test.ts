/**
 * Sending capacity (PROTOCOL-EXTRA §1.10) as the outbox worker obeys it, on a server whose base capacity is two
 * emails an hour: only the budget goes out, the rest waits `queued` without an error, goes out when the hour has
 * passed or a boost multiplies the budget; `GET /emails/delivery-info` reports the same numbers.
 */
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
import { startTestSmtpServer, type TestSmtpServer } from "../../testing/smtp-server.ts";
import { createSignedInUser } from "../../testing/users.ts";
import { sentEmails } from "./schema.ts";
import { type EmailWorker, startEmailWorker } from "./worker.ts";

const CAPACITY = 2;

let smtp: TestSmtpServer;
let server: TestServer;
let worker: EmailWorker;

beforeAll(async () => {
  smtp = await startTestSmtpServer();
  server = await createTestServer({ emailCapacityPerHour: CAPACITY });
  worker = startEmailWorker(server.deps, { intervalMs: 60_000 });
});
afterAll(async () => {
  await worker.stop();
  await server.close();
  await smtp.close();
});

async function mailingProject(name: string, userCount: number) {
  const project = await server.createProject(name);
  await project.configure({ "emails.server": { isShared: false, host: "127.0.0.1", port: smtp.port } });
  const users = [];
  for (let i = 0; i < userCount; i++) {
    users.push(await createSignedInUser(server, project.id, { primaryEmail: `u${i}@${name}.example` }));
  }
  return { project, userIds: users.map((u) => u.user.id) };
}

const api = (project: TestProject, path: string, method = "GET", body?: unknown) =>
  server.request(`/api/v1${path}`, {
    method,
    headers: project.headers(method === "GET" ? "server" : "admin"),
    ...(body === undefined ? {} : { body }),
  });

type Item = { status: string; recipients: string[]; send_retries: number; [key: string]: unknown };
async function outbox(project: TestProject): Promise<Item[]> {
  const listed = await api(project, "/emails/outbox");
  expect(listed.status).toBe(200);
  return listed.body.items;
}
const withStatus = (items: Item[], status: string) => items.filter((item) => item.status === status);

/** An hour passes for the project's outbox: every time it stored moves an hour back. */
async function anHourPasses(projectId: string) {
  await server.deps.db
    .update(sentEmails)
    .set({
      sentAt: sql`${sentEmails.sentAt} - interval '1 hour'`,
      nextAttemptAt: sql`${sentEmails.nextAttemptAt} - interval '1 hour'`,
    })
    .where(eq(sentEmails.projectId, projectId));
}

/** What `rate_per_second` must be (PROTOCOL-EXTRA §1.10) with no bounces or spam reports. */
const expectedRate = (monthSent: number, boost = 1) => ((CAPACITY + (4 * monthSent) / 720) / 3600) * boost;

describe("the hourly capacity", () => {
  it("sends only the budget, keeps the rest queued without an error, and sends it when the hour has passed", async () => {
    const { project, userIds } = await mailingProject("budget", 5);
    const sent = await api(project, "/emails/send-email", "POST", { user_ids: userIds, html: "<p>news</p>" });
    expect(sent.status, sent.text).toBe(200);

    await worker.drain();
    let items = await outbox(project);
    expect(withStatus(items, "sent")).toHaveLength(CAPACITY);
    const waiting = withStatus(items, "queued");
    expect(waiting).toHaveLength(5 - CAPACITY);
    for (const item of waiting) {
      // Held back for capacity is not a failed attempt.
      expect(item).toMatchObject({
        send_retries: 0,
        send_attempt_errors: null,
        next_send_retry_at_millis: null,
      });
      expect(item.started_sending_at_millis).toBeUndefined();
    }
    for (const item of withStatus(items, "sent")) await smtp.waitForMessageTo(item.recipients[0]!);
    const received = () => smtp.messages.filter((m) => m.to.some((to) => to.endsWith("@budget.example")));
    expect(received()).toHaveLength(CAPACITY);

    // Draining again within the hour sends nothing more.
    await worker.drain();
    expect(withStatus(await outbox(project), "sent")).toHaveLength(CAPACITY);

    const info = await api(project, "/emails/delivery-info");
    expect(info.status).toBe(200);
    const counts = { sent: CAPACITY, bounced: 0, marked_as_spam: 0 };
    expect(info.body).toEqual({
      stats: { hour: counts, day: counts, week: counts, month: counts },
      capacity: {
        rate_per_second: expectedRate(CAPACITY),
        boost_multiplier: 1,
        penalty_factor: 1,
        is_boost_active: false,
        boost_expires_at: null,
      },
    });

    await anHourPasses(project.id);
    await worker.drain();
    items = await outbox(project);
    expect(withStatus(items, "sent")).toHaveLength(2 * CAPACITY);
    expect(withStatus(items, "queued")).toHaveLength(5 - 2 * CAPACITY);
    const later = (await api(project, "/emails/delivery-info")).body;
    expect(later.stats.hour.sent).toBe(CAPACITY);
    expect(later.stats.month.sent).toBe(2 * CAPACITY);
    expect(later.capacity.rate_per_second).toBe(expectedRate(2 * CAPACITY));
  });

  it("sends the highest priority first when over the budget, and counts each project on its own", async () => {
    const { project, userIds } = await mailingProject("priority", 4);
    const [urgent, ...rest] = userIds;
    expect(
      (await api(project, "/emails/send-email", "POST", { user_ids: rest, html: "<p>later</p>" })).status,
    ).toBe(200);
    const high = await api(project, "/emails/send-email", "POST", {
      user_ids: [urgent],
      html: "<p>now</p>",
      is_high_priority: true,
    });
    expect(high.status).toBe(200);
    await worker.drain();
    const items = await outbox(project);
    expect(withStatus(items, "sent").map((item) => item.recipients[0])).toContain("u0@priority.example");
    expect(withStatus(items, "sent")).toHaveLength(CAPACITY);

    // The budget is used up, yet high-priority email (as the built-in sign-in emails are) is never held back.
    const second = await api(project, "/emails/send-email", "POST", {
      user_ids: [urgent],
      html: "<p>again</p>",
      is_high_priority: true,
    });
    expect(second.status).toBe(200);
    await worker.drain();
    expect(withStatus(await outbox(project), "sent")).toHaveLength(CAPACITY + 1);
  });
});

describe("capacity boosts", () => {
  it("answers 200 then 409 while one runs, reports it, and lets the held emails out at four times the rate", async () => {
    const { project, userIds } = await mailingProject("boosted", 6);
    expect(
      (await api(project, "/emails/send-email", "POST", { user_ids: userIds, html: "<p>x</p>" })).status,
    ).toBe(200);
    await worker.drain();
    expect(withStatus(await outbox(project), "sent")).toHaveLength(CAPACITY);

    const before = Date.now();
    const boost = await api(project, "/emails/capacity-boost", "POST");
    expect(boost.status, boost.text).toBe(200);
    const expiresAt = Date.parse(boost.body.expires_at);
    expect(expiresAt).toBeGreaterThanOrEqual(before + 4 * 3_600_000 - 5_000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 4 * 3_600_000 + 5_000);

    const again = await server.request("/api/v1/emails/capacity-boost", {
      method: "POST",
      headers: project.headers("server"),
    });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({
      code: "EMAIL_CAPACITY_BOOST_ALREADY_ACTIVE",
      details: { expires_at: boost.body.expires_at },
    });

    const info = (await api(project, "/emails/delivery-info")).body;
    expect(info.capacity).toEqual({
      rate_per_second: expectedRate(CAPACITY, 4),
      boost_multiplier: 4,
      penalty_factor: 1,
      is_boost_active: true,
      boost_expires_at: boost.body.expires_at,
    });

    // Four times two an hour: all six are out within the hour, without waiting for it to pass.
    await worker.drain();
    const items = await outbox(project);
    expect(withStatus(items, "sent")).toHaveLength(6);
    expect((await api(project, "/emails/delivery-info")).body.stats.hour.sent).toBe(6);
  });

  it("is refused to clients", async () => {
    const project = await server.createProject("client boost");
    const response = await server.request("/api/v1/emails/capacity-boost", {
      method: "POST",
      headers: project.headers("client"),
    });
    expect(response.status).toBe(401);
  });
});
