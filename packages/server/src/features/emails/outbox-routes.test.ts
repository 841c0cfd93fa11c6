/**
 * `/emails/outbox` (PROTOCOL-EXTRA §1.9), sign-in invitations (§1.12) and development's local inbox: what an admin
 * sees of each email in each state, and what an edit does to it.
 */
import { eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
import { closedPort } from "../../testing/smtp-server.ts";
import { createSignedInUser } from "../../testing/users.ts";
import { outboxItem } from "./outbox-view.ts";
import { sentEmails } from "./schema.ts";
import { detachBootWorker } from "./test-support.ts";
import { type EmailWorker, startEmailWorker } from "./worker.ts";

let server: TestServer;
let project: TestProject;
const workers: EmailWorker[] = [];

beforeAll(async () => {
  server = await createTestServer();
  await detachBootWorker(server);
  project = await server.createProject("Outbox Co");
  // Nothing listens on this port: every delivery attempt fails at once, so emails stay editable.
  await project.configure({
    "emails.server": { isShared: false, host: "127.0.0.1", port: await closedPort() },
  });
});
afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.stop()));
});
afterAll(() => server.close());

/** One pass of the worker: renders what is due, tries to deliver it. */
async function runWorker(deps = server.deps) {
  const worker = startEmailWorker(deps, { intervalMs: 60_000 });
  workers.push(worker);
  await worker.drain();
}

const api = (path: string, init: { method?: string; body?: unknown } = {}, target = project) =>
  server.request(`/api/v1${path}`, { ...init, headers: target.headers("server") });

async function sendTo(userId: string, html = "<p>hello</p>", extra: Record<string, unknown> = {}) {
  const sent = await api("/emails/send-email", {
    method: "POST",
    body: { user_ids: [userId], html, ...extra },
  });
  expect(sent.status, sent.text).toBe(200);
  const listed = await api("/emails/outbox?limit=1");
  return listed.body.items[0] as { id: string; status: string };
}

describe("reading the outbox", () => {
  it("shows each email with its status, newest first, filtered and paged with a cursor", async () => {
    const { user } = await createSignedInUser(server, project.id, { primaryEmail: "pages@example.com" });
    const first = await sendTo(user.id, "<p>one</p>");
    const second = await sendTo(user.id, "<p>two</p>");
    const third = await sendTo(user.id, "<p>three</p>", { scheduled_at_millis: Date.now() + 3_600_000 });
    expect(first.status).toBe("preparing");

    await runWorker();
    const item = (await api(`/emails/outbox/${first.id}`)).body;
    // The first attempt failed (no server listens): back in the queue, with the attempt's error.
    expect(item).toMatchObject({
      id: first.id,
      status: "queued",
      simple_status: "in-progress",
      has_rendered: true,
      has_delivered: false,
      to: { type: "user-primary-email", user_id: user.id },
      recipients: ["pages@example.com"],
      created_with: "programmatic-call",
    });
    expect(item.send_attempt_errors[0].external_message).toMatch(/Could not connect/);
    expect(item.next_send_retry_at_millis).toBeGreaterThan(Date.now());
    expect(item.html).toContain("<p>one</p>");
    expect((await api(`/emails/outbox/${third.id}`)).body.status).toBe("scheduled");

    const page1 = await api("/emails/outbox?limit=2");
    expect(page1.body.items.map((i: { id: string }) => i.id)).toEqual([third.id, second.id]);
    expect(page1.body.pagination.next_cursor).toBe(first.id);
    const page2 = await api(`/emails/outbox?limit=2&cursor=${first.id}`);
    expect(page2.body.items[0].id).toBe(first.id);

    const scheduled = await api("/emails/outbox?status=scheduled");
    expect(scheduled.body.items.map((i: { id: string }) => i.id)).toEqual([third.id]);
    const inProgress = await api("/emails/outbox?simple_status=in-progress");
    expect(inProgress.body.items.length).toBeGreaterThanOrEqual(3);
    expect((await api("/emails/outbox?simple_status=ok")).body.items).toEqual([]);
  });

  it("refuses bad queries and unknown ids", async () => {
    expect((await api("/emails/outbox?limit=101")).status).toBe(400);
    expect((await api("/emails/outbox?status=lost")).body.code).toBe("SCHEMA_ERROR");
    expect((await api("/emails/outbox/00000000-0000-4000-8000-000000000000")).status).toBe(404);
    expect((await api("/emails/outbox/not-a-uuid")).body.code).toBe("SCHEMA_ERROR");
    const clients = await server.request("/api/v1/emails/outbox", { headers: project.headers("client") });
    expect(clients.status).toBe(401);
  });
});

describe("editing an email before it is sent", () => {
  it("pauses, cancels, and re-renders after a change of content", async () => {
    const { user } = await createSignedInUser(server, project.id, { primaryEmail: "edits@example.com" });
    const email = await sendTo(user.id, "<p>draft</p>");
    const paused = await api(`/emails/outbox/${email.id}`, { method: "PATCH", body: { is_paused: true } });
    expect(paused.body).toMatchObject({ status: "paused", is_paused: true });
    await runWorker();
    // Held: not even rendered.
    expect((await api(`/emails/outbox/${email.id}`)).body).toMatchObject({
      status: "paused",
      has_rendered: false,
    });

    await api(`/emails/outbox/${email.id}`, { method: "PATCH", body: { is_paused: false } });
    await runWorker();
    expect((await api(`/emails/outbox/${email.id}`)).body.html).toContain("draft");

    const changed = await api(`/emails/outbox/${email.id}`, {
      method: "PATCH",
      body: { variables: { html: "<p>final words</p>" } },
    });
    expect(changed.body).toMatchObject({ status: "preparing", has_rendered: false, send_retries: 0 });
    await runWorker();
    expect((await api(`/emails/outbox/${email.id}`)).body.html).toContain("final words");

    const cancelled = await api(`/emails/outbox/${email.id}`, { method: "PATCH", body: { cancel: true } });
    expect(cancelled.body).toMatchObject({ status: "skipped", skipped_reason: "MANUALLY_CANCELLED" });
    const again = await api(`/emails/outbox/${email.id}`, { method: "PATCH", body: { is_paused: true } });
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({
      code: "EMAIL_NOT_EDITABLE",
      details: { email_id: email.id, status: "SKIPPED" },
    });
  });

  it("reports a template that no longer renders as a render error", async () => {
    const { user } = await createSignedInUser(server, project.id, { primaryEmail: "broken@example.com" });
    const email = await sendTo(user.id);
    await api(`/emails/outbox/${email.id}`, {
      method: "PATCH",
      body: { tsx_source: "export function EmailTemplate() { return missing; }" },
    });
    await runWorker();
    const item = (await api(`/emails/outbox/${email.id}`)).body;
    expect(item).toMatchObject({ status: "render-error", simple_status: "error" });
    expect(item.render_error).toMatch(/missing/);
    const listed = await server.request("/api/v1/internal/emails", { headers: project.headers("admin") });
    const row = listed.body.items.find((i: { id: string }) => i.id === email.id);
    expect(row.error).toMatch(/^Render error: /);
  });
});

describe("sign-in invitations and development's inbox", () => {
  it("sends the invitation to a trusted callback only, and shows it in full in development's dev outbox", async () => {
    const devProject = await server.createProject("Dev inbox");
    const refused = await api(
      "/internal/send-sign-in-invitation",
      { method: "POST", body: { email: "guest@example.com", callback_url: "https://evil.example/welcome" } },
      devProject,
    );
    expect(refused.body.code).toBe("REDIRECT_URL_NOT_WHITELISTED");

    const callback = "http://localhost:3000/handler/sign-in?invited=1";
    const sent = await api(
      "/internal/send-sign-in-invitation",
      { method: "POST", body: { email: "Guest@Example.com", callback_url: callback } },
      devProject,
    );
    expect(sent.body).toEqual({ success: true });
    await runWorker();
    const [item] = (await api("/emails/outbox", {}, devProject)).body.items;
    expect(item).toMatchObject({
      status: "sent",
      subject: "You have been invited to sign in to Dev inbox",
      recipients: ["guest@example.com"],
      is_dev_inbox: true,
    });
    // The developer's inbox: the link works from here. The stored row and production show it redacted.
    expect(item.html).toContain(callback.replace("&", "&amp;"));

    const production = { ...server.deps, env: { ...server.deps.env, isDevelopment: false } };
    const [row] = await server.deps.db.select().from(sentEmails).where(eq(sentEmails.id, item.id));
    const shown = outboxItem(production.env, row!);
    expect(shown.html).not.toContain("invited=1");
    expect(shown.is_dev_inbox).toBe(false);
  });
});
