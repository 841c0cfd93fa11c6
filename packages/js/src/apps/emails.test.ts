import { isKnownError } from "@gatehouse/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EmailWorker, startEmailWorker } from "../../../server/src/features/emails/worker.ts";
import type { TestProject } from "../../../server/src/testing/harness.ts";
import {
  closedPort,
  startTestSmtpServer,
  type TestSmtpServer,
} from "../../../server/src/testing/smtp-server.ts";
import { appsFor, errorOf, uniqueEmail } from "../testing/apps.ts";
import { GREETING_TEMPLATE } from "../testing/email-templates.ts";
import { type RunningGatehouse, startGatehouse } from "../testing/gatehouse-server.ts";
import type { GatehouseAdminApp } from "./admin-app.ts";
import type { AdminEmailOutbox } from "./emails.ts";

/**
 * The SDK's email methods against a real server with a real SMTP server: sendEmail (HTML and templates, from the
 * server and the admin app), the outbox (list with filters and pages, read, pause, unpause, cancel, edit), sign-in
 * invitations, unsubscribe links, and the errors an app must be able to tell apart.
 */
let gh: RunningGatehouse;
let smtp: TestSmtpServer;
let worker: EmailWorker;
let project: TestProject;
let apps: ReturnType<typeof appsFor>;
let admin: GatehouseAdminApp;

const TEMPLATE_ID = "3b0c5ac4-52a9-4c47-9d7e-4f7f0a4f7c11";
const TEMPLATE = GREETING_TEMPLATE;

beforeAll(async () => {
  // Unsubscribe links are built from the server's public URL; here it is the address the test can fetch.
  gh = await startGatehouse({}, { baseUrlIsListeningAddress: true });
  smtp = await startTestSmtpServer();
  // The booted worker is stopped first: two workers would share the queue, and `drain()` waits for its own only.
  await (gh.gatehouse.deps.emailWorker as EmailWorker | undefined)?.stop();
  // The test's own worker, woken by each send like the booted one; `drain()` waits for everything due.
  worker = startEmailWorker(gh.gatehouse.deps, { intervalMs: 3_600_000 });
  gh.gatehouse.deps.emailWorker = worker;
  project = await gh.createProject("SDK emails");
  await project.configure({
    "emails.server": {
      isShared: false,
      host: "127.0.0.1",
      port: smtp.port,
      senderEmail: "noreply@sdk-emails.test",
      senderName: "SDK emails",
    },
    [`emails.templates.${TEMPLATE_ID}`]: { displayName: "Greeting", tsxSource: TEMPLATE },
  });
  apps = appsFor(gh, project);
  admin = apps.admin();
});
afterAll(async () => {
  await worker?.stop();
  await smtp?.close();
  await gh?.close();
});

async function user(name = "Ada") {
  const email = uniqueEmail(name.toLowerCase());
  const { userId } = await gh.createUser(project.id, {
    primaryEmail: email,
    primaryEmailVerified: true,
    displayName: name,
  });
  return { id: userId, email };
}

/** The outbox email queued for `userId` (newest first), as the admin app reads it. */
async function outboxEmailFor(userId: string): Promise<AdminEmailOutbox> {
  const { items } = await admin.listOutboxEmails();
  const found = items.find((item) => item.to.type === "user-primary-email" && item.to.userId === userId);
  if (!found) throw new Error(`no outbox email for ${userId}`);
  return found;
}

describe("sendEmail", () => {
  it("queues HTML to each user; both arrive and the outbox says sent", async () => {
    const [ada, bob] = [await user("Ada"), await user("Bob")];
    const result = await admin.sendEmail({
      userIds: [ada.id, bob.id],
      html: "<p>Our <b>spring</b> update</p>",
      subject: "Spring update",
    });
    expect(result.userIds).toEqual([ada.id, bob.id]);
    await worker.drain();

    for (const recipient of [ada, bob]) {
      const message = await smtp.waitForMessageTo(recipient.email);
      expect(message.subject).toBe("Spring update");
      expect(message.html).toContain("<b>spring</b>");
      expect(message.from).toEqual({ name: "SDK emails", address: "noreply@sdk-emails.test" });
      const email = await outboxEmailFor(recipient.id);
      expect(email).toMatchObject({
        status: "sent",
        simpleStatus: "ok",
        hasRendered: true,
        hasDelivered: true,
        subject: "Spring update",
        recipients: [recipient.email],
        to: { type: "user-primary-email", userId: recipient.id },
        kind: "html",
      });
      if (email.status !== "sent") throw new Error("narrowing");
      expect(email.deliveredAt).toBeInstanceOf(Date);
      expect(email.html).toContain("<b>spring</b>");
      expect((await admin.getOutboxEmail(email.id)).id).toBe(email.id);
    }
  });

  it("renders a project template with the given variables, from the server app too", async () => {
    const cleo = await user("Cleo");
    const server = apps.server();
    await server.sendEmail({ userIds: [cleo.id], templateId: TEMPLATE_ID, variables: { name: "Cleo" } });
    await worker.drain();
    const message = await smtp.waitForMessageTo(cleo.email);
    expect(message.subject).toBe("Hello Cleo");
    expect(message.html).toContain("Greetings, Cleo");

    const email = (await server.listOutboxEmails()).items.find(
      (item) => item.to.type !== "custom-emails" && item.to.userId === cleo.id,
    )!;
    expect(email).toMatchObject({
      status: "sent",
      emailProgrammaticCallTemplateId: TEMPLATE_ID,
      // Dropped with the sealed message once delivered (they may carry links and codes).
      variables: {},
      isTransactional: true,
      createdWith: "programmatic-call",
    });
  });

  it("sends to all users with allUsers", async () => {
    const before = (await admin.listUsers({ limit: 100 })).length;
    const dora = await user("Dora");
    const result = await admin.sendEmail({ allUsers: true, html: "<p>To everyone</p>", subject: "All" });
    expect(result.userIds).toHaveLength(before + 1);
    expect(result.userIds).toContain(dora.id);
    await worker.drain();
    expect((await smtp.waitForMessageTo(dora.email)).subject).toBe("All");
  });

  it("names an unknown user with USER_ID_DOES_NOT_EXIST and queues nothing", async () => {
    const eve = await user("Eve");
    const missing = crypto.randomUUID();
    const before = (await admin.listOutboxEmails()).items.length;
    const error = await errorOf(admin.sendEmail({ userIds: [eve.id, missing], html: "<p>x</p>" }));
    expect(isKnownError(error, "USER_ID_DOES_NOT_EXIST")).toBe(true);
    expect((error as { details?: unknown }).details).toEqual({ user_id: missing });
    expect((await admin.listOutboxEmails()).items).toHaveLength(before);
  });

  it("needs the project's own email server: REQUIRES_CUSTOM_EMAIL_SERVER on the shared one", async () => {
    const shared = await gh.createProject("SDK emails, shared server");
    const { userId } = await gh.createUser(shared.id, { primaryEmail: uniqueEmail("shared") });
    const error = await errorOf(
      appsFor(gh, shared)
        .server()
        .sendEmail({ userIds: [userId], html: "<p>x</p>" }),
    );
    expect(isKnownError(error, "REQUIRES_CUSTOM_EMAIL_SERVER")).toBe(true);
  });

  it("refuses an unknown category and an unknown template in the server's words", async () => {
    const fay = await user("Fay");
    const category = await errorOf(
      admin.sendEmail({ userIds: [fay.id], html: "<p>x</p>", notificationCategoryName: "Newsletter" }),
    );
    expect(String(category)).toContain("Unknown notification category");
    const template = await errorOf(admin.sendEmail({ userIds: [fay.id], templateId: crypto.randomUUID() }));
    expect(String(template)).toContain("No email template");
  });
});

describe("the outbox", () => {
  it("lists by status and simple status, a page at a time", async () => {
    const gus = await user("Gus");
    await admin.sendEmail({
      userIds: [gus.id],
      html: "<p>later</p>",
      scheduledAt: new Date(Date.now() + 3600_000),
    });
    await worker.drain();

    const scheduled = await admin.listOutboxEmails({ status: "scheduled" });
    expect(scheduled.items.map((item) => item.to.type !== "custom-emails" && item.to.userId)).toEqual([
      gus.id,
    ]);
    const inProgress = await admin.listOutboxEmails({ simpleStatus: "in-progress" });
    expect(inProgress.items.map((item) => item.status)).toEqual(["scheduled"]);
    const sent = await admin.listOutboxEmails({ status: "sent" });
    expect(sent.items.length).toBeGreaterThan(2);
    expect(sent.items.every((item) => item.status === "sent" && item.simpleStatus === "ok")).toBe(true);

    const all = (await admin.listOutboxEmails()).items;
    const first = await admin.listOutboxEmails({ limit: 2 });
    expect(first.items.map((item) => item.id)).toEqual(all.slice(0, 2).map((item) => item.id));
    expect(first.nextCursor).toBe(all[2]!.id);
    const second = await admin.listOutboxEmails({ limit: 2, cursor: first.nextCursor! });
    expect(second.items.map((item) => item.id)).toEqual(all.slice(2, 4).map((item) => item.id));

    await admin.cancelOutboxEmail(scheduled.items[0]!.id);
  });

  it("pauses, unpauses, reschedules and edits an email not sent yet; the edit is what arrives", async () => {
    const hal = await user("Hal");
    await admin.sendEmail({
      userIds: [hal.id],
      templateId: TEMPLATE_ID,
      variables: { name: "Hal" },
      scheduledAt: new Date(Date.now() + 3600_000),
    });
    await worker.drain();
    const queued = await outboxEmailFor(hal.id);
    expect(queued).toMatchObject({ status: "scheduled", simpleStatus: "in-progress", subject: "Hello Hal" });

    const paused = await admin.pauseOutboxEmail(queued.id);
    expect(paused).toMatchObject({ status: "paused", isPaused: true });
    expect((await admin.getOutboxEmail(queued.id)).status).toBe("paused");
    expect((await admin.unpauseOutboxEmail(queued.id)).status).toBe("scheduled");

    // New variables send it back to be rendered; a pause holds it meanwhile.
    await admin.pauseOutboxEmail(queued.id);
    const edited = await admin.updateOutboxEmail(queued.id, { variables: { name: "Harold" } });
    expect(edited).toMatchObject({ status: "paused", hasRendered: false, variables: { name: "Harold" } });
    await worker.drain();
    expect((await admin.getOutboxEmail(queued.id)).status).toBe("paused");

    await admin.updateOutboxEmail(queued.id, { isPaused: false, scheduledAt: new Date() });
    await worker.drain();
    const message = await smtp.waitForMessageTo(hal.email);
    expect(message.subject).toBe("Hello Harold");
    expect(smtp.messages.filter((m) => m.envelope.to.includes(hal.email))).toHaveLength(1);
    expect((await admin.getOutboxEmail(queued.id)).status).toBe("sent");
  });

  it("cancels: skipped as MANUALLY_CANCELLED, never sent, and no longer editable", async () => {
    const ida = await user("Ida");
    await admin.sendEmail({
      userIds: [ida.id],
      html: "<p>x</p>",
      scheduledAt: new Date(Date.now() + 3600_000),
    });
    await worker.drain();
    const { id } = await outboxEmailFor(ida.id);
    const cancelled = await admin.cancelOutboxEmail(id);
    expect(cancelled).toMatchObject({
      status: "skipped",
      simpleStatus: "ok",
      skippedReason: "MANUALLY_CANCELLED",
    });

    const error = await errorOf(admin.unpauseOutboxEmail(id));
    expect(isKnownError(error, "EMAIL_NOT_EDITABLE")).toBe(true);
    expect((error as { details?: unknown }).details).toEqual({ email_id: id, status: "SKIPPED" });
    expect(smtp.messages.some((m) => m.envelope.to.includes(ida.email))).toBe(false);
  });

  it("refuses to edit a sent email with EMAIL_NOT_EDITABLE, and an unknown id is not found", async () => {
    const jon = await user("Jon");
    await admin.sendEmail({ userIds: [jon.id], html: "<p>x</p>" });
    await worker.drain();
    const sent = await outboxEmailFor(jon.id);
    expect(sent.status).toBe("sent");
    const error = await errorOf(admin.updateOutboxEmail(sent.id, { tsxSource: "export const x = 1;" }));
    expect(isKnownError(error, "EMAIL_NOT_EDITABLE")).toBe(true);
    expect((error as { details?: unknown }).details).toEqual({ email_id: sent.id, status: "SENT" });

    const missing = await errorOf(admin.getOutboxEmail(crypto.randomUUID()));
    expect((missing as { status?: number }).status).toBe(404);
  });

  it("shows a failed delivery: the send error with its attempt, in the outbox and the sent list", async () => {
    const down = await gh.createProject("SDK emails, server down");
    await down.configure({
      "emails.server": {
        isShared: false,
        host: "127.0.0.1",
        port: await closedPort(),
        senderEmail: "a@b.test",
      },
    });
    const { userId } = await gh.createUser(down.id, { primaryEmail: uniqueEmail("down") });
    const downAdmin = appsFor(gh, down).admin();
    await downAdmin.sendEmail({ userIds: [userId], html: "<p>x</p>", subject: "Never arrives" });
    await worker.drain();

    const [email] = (await downAdmin.listOutboxEmails()).items;
    // The first attempt failed; a retry is due later.
    expect(email).toMatchObject({ status: "queued", sendRetries: 0 });
    expect(email!.sendAttemptErrors).toHaveLength(1);
    expect(email!.sendAttemptErrors![0]).toMatchObject({ attemptNumber: 1 });
    expect(email!.sendAttemptErrors![0]!.externalMessage).toMatch(/connect|refused/i);
    expect(email!.nextSendRetryAt).toBeInstanceOf(Date);

    const [listed] = await downAdmin.listSentEmails();
    expect(listed).toMatchObject({ subject: "Never arrives", status: "queued", attempts: 1 });
    expect(String(listed!.error)).toMatch(/^Send error: /);
  });
});

describe("notification categories and unsubscribe links", () => {
  it("skips a user who turned Marketing off; the other's email carries a List-Unsubscribe link that turns it off", async () => {
    const [kim, lea] = [await user("Kim"), await user("Lea")];
    const server = apps.server();
    const marketingOf = async (id: string) =>
      (await (await server.getUser(id))!.listNotificationCategories()).find((c) => c.name === "Marketing")!;
    await (await marketingOf(kim.id)).setEnabled(false);

    await server.sendEmail({
      userIds: [kim.id, lea.id],
      html: "<p>Spring sale</p>",
      subject: "Sale",
      notificationCategoryName: "Marketing",
    });
    await worker.drain();

    const skipped = await outboxEmailFor(kim.id);
    expect(skipped).toMatchObject({ status: "skipped", skippedReason: "USER_UNSUBSCRIBED" });
    expect(smtp.messages.some((m) => m.envelope.to.includes(kim.email))).toBe(false);
    const listed = (await admin.listSentEmails()).find((item) => item.id === skipped.id);
    expect(listed).toMatchObject({ status: "skipped", skippedReason: "USER_UNSUBSCRIBED" });

    const message = await smtp.waitForMessageTo(lea.email);
    // mailparser gathers the List-* headers under "list": {unsubscribe: <the link>, "unsubscribe-post": …}.
    const list = JSON.stringify(message.headers.get("list") ?? {});
    expect(list).toContain('"unsubscribe-post":{"name":"List-Unsubscribe=One-Click"}');
    const link = /"unsubscribe":\{[^}]*"(http[^"]+)"/.exec(list)?.[1] ?? "";
    expect(link).toMatch(new RegExp(`^${gh.baseUrl}/api/v1/emails/unsubscribe-link\\?code=`));
    expect(await outboxEmailFor(lea.id)).toMatchObject({ isTransactional: false });

    expect((await marketingOf(lea.id)).enabled).toBe(true);
    const page = await fetch(link);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("unsubscribed from marketing emails");
    expect((await marketingOf(lea.id)).enabled).toBe(false);
  });
});

describe("sendSignInInvitationEmail", () => {
  it("emails an invitation with the callback link; an untrusted callback is refused", async () => {
    const address = uniqueEmail("invitee");
    await admin.sendSignInInvitationEmail(address, "http://localhost:3000/handler/sign-in");
    await worker.drain();
    const message = await smtp.waitForMessageTo(address);
    expect(message.subject).toContain("SDK emails");
    expect(message.html).toContain("http://localhost:3000/handler/sign-in");

    const error = await errorOf(apps.server().sendSignInInvitationEmail(address, "https://evil.example/x"));
    expect(isKnownError(error, "REDIRECT_URL_NOT_WHITELISTED")).toBe(true);
  });
});
