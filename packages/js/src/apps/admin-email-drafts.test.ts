import { isKnownError } from "@gatehouse/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_DARK_THEME_ID } from "../../../server/src/email-rendering/index.ts";
import { type EmailWorker, startEmailWorker } from "../../../server/src/features/emails/worker.ts";
import { startTestSmtpServer, type TestSmtpServer } from "../../../server/src/testing/smtp-server.ts";
import { appsFor, uniqueEmail } from "../testing/apps.ts";
import { type RunningGatehouse, startGatehouse } from "../testing/gatehouse-server.ts";
import type { GatehouseAdminApp } from "./admin-app.ts";
import type { GatehouseServerApp } from "./server-app.ts";

/**
 * The SDK's email drafts (admin app), delivery info and capacity boosts (server app) against a real server whose
 * base capacity is three emails an hour, with a real SMTP server and the outbox worker.
 */
const CAPACITY = 3;
let gh: RunningGatehouse;
let smtp: TestSmtpServer;
let worker: EmailWorker;
let admin: GatehouseAdminApp;
let server: GatehouseServerApp;
let projectId: string;

beforeAll(async () => {
  gh = await startGatehouse({ emailCapacityPerHour: CAPACITY });
  smtp = await startTestSmtpServer();
  // The booted worker is stopped first: two workers would share the queue, and `drain()` waits for its own only.
  await (gh.gatehouse.deps.emailWorker as EmailWorker | undefined)?.stop();
  // The test's own worker, woken by each send like the booted one; `drain()` waits for everything due.
  worker = startEmailWorker(gh.gatehouse.deps, { intervalMs: 3_600_000 });
  gh.gatehouse.deps.emailWorker = worker;
  const project = await gh.createProject("SDK drafts");
  projectId = project.id;
  await project.configure({
    "emails.server": {
      isShared: false,
      host: "127.0.0.1",
      port: smtp.port,
      senderEmail: "noreply@sdk-drafts.test",
    },
  });
  const apps = appsFor(gh, project);
  admin = apps.admin();
  server = apps.server();
});
afterAll(async () => {
  await worker?.stop();
  await smtp?.close();
  await gh?.close();
});

async function user(name: string) {
  const email = uniqueEmail(name);
  const { userId } = await gh.createUser(projectId, {
    primaryEmail: email,
    primaryEmailVerified: true,
    displayName: name,
  });
  return { id: userId, email };
}

const DRAFT = `import { Text } from "@react-email/components";
import { NotificationCategory, Subject, type Props } from "@stackframe/emails";
export function EmailTemplate({ user }: Props) {
  return (
    <>
      <Subject value="From a draft" />
      <NotificationCategory value="Transactional" />
      <Text>Dear {user.displayName}, this came from a draft.</Text>
    </>
  );
}`;

describe("email drafts", () => {
  it("creates, lists, reads, updates and deletes drafts", async () => {
    const { id } = await admin.createEmailDraft({ displayName: "Welcome", themeId: DEFAULT_DARK_THEME_ID });
    const { id: starter } = await admin.createEmailDraft({ displayName: "Starter" });
    const read = await admin.getEmailDraft(id);
    expect(read).toEqual({
      id,
      displayName: "Welcome",
      tsxSource: expect.stringContaining('<NotificationCategory value="Marketing" />'),
      themeId: DEFAULT_DARK_THEME_ID,
      sentAt: null,
    });
    expect((await admin.getEmailDraft(starter)).themeId).toBeUndefined();

    await admin.updateEmailDraft(id, { tsxSource: DRAFT, themeId: false });
    const listed = await admin.listEmailDrafts();
    expect(listed[0]).toMatchObject({ id, tsxSource: DRAFT, themeId: false, displayName: "Welcome" });
    expect(listed.map((d) => d.id)).toContain(starter);

    await admin.deleteEmailDraft(starter);
    expect((await admin.listEmailDrafts()).map((d) => d.id)).not.toContain(starter);
    await expect(admin.getEmailDraft(starter)).rejects.toThrow();
  });

  it("sends a draft with sendEmail({ draftId }) and marks it sent", async () => {
    const ada = await user("ada");
    const { id } = await admin.createEmailDraft({ displayName: "Letter", tsxSource: DRAFT });
    await server.sendEmail({ userIds: [ada.id], draftId: id });
    await worker.drain();
    const message = await smtp.waitForMessageTo(ada.email);
    expect(message.subject).toBe("From a draft");
    expect(message.text).toContain("Dear ada, this came from a draft.");
    expect((await admin.getEmailDraft(id)).sentAt).toBeInstanceOf(Date);
    const { items } = await admin.listOutboxEmails();
    const item = items.find((i) => i.to.type === "user-primary-email" && i.to.userId === ada.id);
    expect(item).toMatchObject({ createdWith: "draft", emailDraftId: id, status: "sent" });
  });
});

describe("delivery info and capacity", () => {
  it("reports what was sent and holds the rest to the capacity until a boost", async () => {
    const before = await server.getEmailDeliveryInfo();
    const alreadySent = before.stats.hour.sent;
    expect(alreadySent).toBeLessThan(CAPACITY);
    expect(before.capacity).toMatchObject({
      boost_multiplier: 1,
      is_boost_active: false,
      boost_expires_at: null,
    });

    const users = [await user("c1"), await user("c2"), await user("c3"), await user("c4")];
    await server.sendEmail({ userIds: users.map((u) => u.id), html: "<p>hello</p>" });
    await worker.drain();
    const info = await server.getEmailDeliveryInfo();
    // Seen once under load: fewer sent than the capacity. The outbox's statuses say why, should it happen again.
    const outbox = (await admin.listOutboxEmails()).items.map((item) => JSON.stringify(item).slice(0, 400));
    expect(info.stats.hour.sent, outbox.join("\n")).toBe(CAPACITY);
    expect(info.stats.month.sent).toBe(CAPACITY);
    const queued = (await admin.listOutboxEmails({ status: "queued" })).items;
    expect(queued).toHaveLength(alreadySent + users.length - CAPACITY);

    const { expiresAt } = await server.activateEmailCapacityBoost();
    expect(expiresAt.getTime()).toBeGreaterThan(Date.now() + 3 * 3_600_000);
    const refused = await server.activateEmailCapacityBoost().then(
      () => null,
      (error: unknown) => error,
    );
    expect(isKnownError(refused, "EMAIL_CAPACITY_BOOST_ALREADY_ACTIVE")).toBe(true);

    const boosted = await admin.getEmailDeliveryStats();
    expect(boosted.capacity).toMatchObject({
      boost_multiplier: 4,
      is_boost_active: true,
      boost_expires_at: expiresAt.toISOString(),
    });
    await worker.drain();
    expect((await admin.listOutboxEmails({ status: "queued" })).items).toHaveLength(0);
    for (const recipient of users) await smtp.waitForMessageTo(recipient.email);
  });
});
