import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import type { AppDeps } from "../../deps.ts";
import type { TestProject, TestServer } from "../../testing/harness.ts";
import { closedPort, startTestSmtpServer, type TestSmtpServer } from "../../testing/smtp-server.ts";
import { readableEmail } from "./body.ts";
import { sendBuiltInEmail } from "./built-in.ts";
import { enqueueRenderedEmail } from "./outbox.ts";
import { sentEmails } from "./schema.ts";
import { openEmailWorkerTestFile } from "./test-support.ts";
import { type EmailWorkerOptions, retryDelayMs, startEmailWorker } from "./worker.ts";

let server: TestServer;
let smtp: TestSmtpServer;
const { startWorker } = openEmailWorkerTestFile((opened) => ({ server, smtp } = opened));

function worker(deps: AppDeps = server.deps, options: EmailWorkerOptions = {}) {
  return startWorker(deps, options);
}

function useProjectSmtp(project: TestProject, settings: Record<string, unknown>) {
  return project.configure({ "emails.server": { isShared: false, ...settings } });
}

async function rowOf(projectId: string, id: string) {
  const [row] = await server.deps.db
    .select()
    .from(sentEmails)
    .where(and(eq(sentEmails.projectId, projectId), eq(sentEmails.id, id)));
  return row!;
}

/** Makes a queued row due now, instead of waiting for its backoff. */
async function makeDue(projectId: string, id: string) {
  await server.deps.db
    .update(sentEmails)
    .set({ nextAttemptAt: new Date(Date.now() - 1000) })
    .where(and(eq(sentEmails.projectId, projectId), eq(sentEmails.id, id)));
}

const projectOf = async (name: string) => {
  const project = await server.createProject(name);
  return { project, row: { id: project.id, displayName: name } };
};

const verificationLink = "https://app.example.com/handler/email-verification?code=abc&x=1";

describe("delivery through the project's own SMTP server", () => {
  it("sends with the project's sender and login, and marks the row sent", async () => {
    const { project, row: projectRow } = await projectOf("Acme");
    await useProjectSmtp(project, {
      host: "127.0.0.1",
      port: smtp.port,
      username: "mailer",
      password: "s3cret",
      senderName: "Acme Mail",
      senderEmail: "hello@acme.test",
    });
    const queued = await sendBuiltInEmail(server.deps, projectRow, {
      kind: "email_verification",
      to: "ada@example.com",
      variables: { link: verificationLink },
    });
    await worker().drain();

    const message = await smtp.waitForMessageTo("ada@example.com");
    expect(message.from).toEqual({ name: "Acme Mail", address: "hello@acme.test" });
    expect(message.to).toEqual(["ada@example.com"]);
    expect(message.authenticatedUser).toBe("mailer");
    expect(message.subject).toBe("Verify your email at Acme");
    expect(message.text).toContain(verificationLink);
    expect(message.html).toContain(verificationLink.replace("&", "&amp;"));

    const row = await rowOf(project.id, queued.id);
    expect(row).toMatchObject({ status: "sent", transport: "smtp", error: null, attempts: 1 });
    expect(row.sentAt).toBeInstanceOf(Date);
  });

  it("names the project as sender when the config has no sender name", async () => {
    const { project, row: projectRow } = await projectOf("Named Project");
    await useProjectSmtp(project, { host: "127.0.0.1", port: smtp.port, senderEmail: "team@named.test" });
    await sendBuiltInEmail(server.deps, projectRow, {
      kind: "password_reset",
      to: "named@example.com",
      variables: { link: verificationLink },
    });
    await worker().drain();
    const message = await smtp.waitForMessageTo("named@example.com");
    expect(message.from).toEqual({ name: "Named Project", address: "team@named.test" });
    expect(message.authenticatedUser).toBeNull();
  });

  it("retries with backoff while the server is down, then delivers once it is up", async () => {
    const port = await closedPort();
    const { project, row: projectRow } = await projectOf("Flaky");
    await useProjectSmtp(project, { host: "127.0.0.1", port, senderEmail: "flaky@flaky.test" });
    const queued = await sendBuiltInEmail(server.deps, projectRow, {
      kind: "magic_link",
      to: "later@example.com",
      variables: { link: verificationLink, otp: "q1w2e3" },
    });
    const mailer = worker();
    const before = Date.now();
    await mailer.drain();

    const failed = await rowOf(project.id, queued.id);
    expect(failed).toMatchObject({ status: "queued", attempts: 1, sentAt: null, transport: null });
    expect(failed.error).toMatch(/Could not connect to the email server/);
    expect(failed.nextAttemptAt.getTime()).toBeGreaterThan(before + retryDelayMs(1) - 5_000);

    // Not due yet: another drain leaves it alone.
    await mailer.drain();
    expect(await rowOf(project.id, queued.id)).toMatchObject({ status: "queued", attempts: 1 });

    const revived = await startTestSmtpServer({ port });
    try {
      await makeDue(project.id, queued.id);
      await mailer.drain();
      const message = await revived.waitForMessageTo("later@example.com");
      expect(message.subject).toBe("Sign in to Flaky: Your code is Q1W2E3");
      expect(await rowOf(project.id, queued.id)).toMatchObject({
        status: "sent",
        attempts: 2,
        error: null,
        transport: "smtp",
      });
    } finally {
      await revived.close();
    }
  });

  it("gives up after the last attempt but keeps the row and its error", async () => {
    const { project, row: projectRow } = await projectOf("Doomed");
    await useProjectSmtp(project, { host: "127.0.0.1", port: await closedPort() });
    const queued = await sendBuiltInEmail(server.deps, projectRow, {
      kind: "sign_in_invitation",
      to: "never@example.com",
      variables: { link: verificationLink },
    });
    const mailer = worker(server.deps, { maxAttempts: 2 });
    await mailer.drain();
    await makeDue(project.id, queued.id);
    await mailer.drain();
    const row = await rowOf(project.id, queued.id);
    expect(row).toMatchObject({ status: "failed", attempts: 2, sentAt: null });
    expect(row.error).toMatch(/Could not connect/);
    await makeDue(project.id, queued.id);
    await mailer.drain();
    expect(await rowOf(project.id, queued.id)).toMatchObject({ status: "failed", attempts: 2 });
  });

  it("records an unusable project config as the delivery error", async () => {
    const { project } = await projectOf("No host");
    await useProjectSmtp(project, { senderEmail: "x@nohost.test" });
    const queued = await enqueueRenderedEmail(server.deps, project.id, {
      to: ["nohost@example.com"],
      subject: "s",
      html: "<p>h</p>",
      text: "h",
      kind: "custom",
    });
    await worker().drain();
    const row = await rowOf(project.id, queued.id);
    expect(row).toMatchObject({ status: "queued", attempts: 1 });
    expect(row.error).toMatch(/no host or port/);
  });
});

describe("delivery through the shared server (GATEHOUSE_SMTP_URL)", () => {
  it("sends from GATEHOUSE_EMAIL_FROM with the project name", async () => {
    const { project, row: projectRow } = await projectOf("Shared Co");
    const deps: AppDeps = {
      ...server.deps,
      env: {
        ...server.deps.env,
        smtpUrl: `smtp://relay:pw@127.0.0.1:${smtp.port}`,
        emailFrom: "noreply@shared.test",
      },
    };
    const queued = await sendBuiltInEmail(deps, projectRow, {
      kind: "team_invitation",
      to: "bob@example.com",
      variables: { link: verificationLink, teamDisplayName: "Blue" },
    });
    await worker(deps).drain();
    const message = await smtp.waitForMessageTo("bob@example.com");
    expect(message.from).toEqual({ name: "Shared Co", address: "noreply@shared.test" });
    expect(message.authenticatedUser).toBe("relay");
    expect(message.subject).toBe("You have been invited to join Blue");
    expect(message.text).toContain(verificationLink);
    expect(await rowOf(project.id, queued.id)).toMatchObject({ status: "sent", transport: "smtp" });
  });

  it("keeps header injection out of the message", async () => {
    const name = 'Evil "Co"\r\nBcc: victim@example.com';
    const { row: projectRow } = await projectOf(name);
    const deps: AppDeps = { ...server.deps, env: { ...server.deps.env, smtpUrl: smtp.url } };
    await sendBuiltInEmail(deps, projectRow, {
      kind: "password_reset",
      to: "target@example.com",
      variables: { link: verificationLink },
    });
    await worker(deps).drain();
    const message = await smtp.waitForMessageTo("target@example.com");
    expect(message.envelope.to).toEqual(["target@example.com"]);
    expect(message.headers.has("bcc")).toBe(false);
    expect(message.subject).toBe('Reset your password at Evil "Co" Bcc: victim@example.com');
    expect(smtp.messages.some((m) => m.envelope.to.includes("victim@example.com"))).toBe(false);
  });

  it("delivers every message exactly once with two workers draining at the same time", async () => {
    const { project, row: projectRow } = await projectOf("Busy");
    const deps: AppDeps = { ...server.deps, env: { ...server.deps.env, smtpUrl: smtp.url } };
    const recipients = Array.from({ length: 25 }, (_, i) => `busy${i}@example.com`);
    for (const to of recipients) {
      await sendBuiltInEmail(deps, projectRow, {
        kind: "email_verification",
        to,
        variables: { link: verificationLink },
      });
    }
    const a = worker(deps, { batchSize: 3 });
    const b = worker(deps, { batchSize: 3 });
    await Promise.all([a.drain(), b.drain(), a.drain(), b.drain()]);
    await Promise.all(recipients.map((to) => smtp.waitForMessageTo(to)));
    // A worker looks again as soon as rows fall due (polling-worker.ts), so a pass no drain waited for may still be
    // writing its outcome: stopping waits for the passes in flight.
    await Promise.all([a.stop(), b.stop()]);
    for (const to of recipients) {
      expect(smtp.messages.filter((m) => m.envelope.to.includes(to))).toHaveLength(1);
    }
    const rows = await server.deps.db.select().from(sentEmails).where(eq(sentEmails.projectId, project.id));
    expect(rows).toHaveLength(25);
    expect(rows.every((r) => r.status === "sent" && r.attempts === 1)).toBe(true);
  });
});

describe("the dev outbox", () => {
  it("marks mail sent without it leaving the machine", async () => {
    const { project, row: projectRow } = await projectOf("Local");
    const received = smtp.messages.length;
    const queued = await sendBuiltInEmail(server.deps, projectRow, {
      kind: "email_verification",
      to: "local@example.com",
      variables: { link: verificationLink },
    });
    await worker().drain();
    const row = await rowOf(project.id, queued.id);
    expect(row).toMatchObject({ status: "sent", transport: "dev-outbox", error: null, attempts: 1 });
    // In development the dev outbox is the developer's inbox: the message stays readable (sealed, body.ts).
    expect(row.text).not.toContain(verificationLink);
    expect(readableEmail(server.deps.env, row).text).toContain(verificationLink);
    expect(smtp.messages.length).toBe(received);
  });
});

describe("the worker", () => {
  it("delivers on wake-up when a message is queued", async () => {
    const deps: AppDeps = { ...server.deps, env: { ...server.deps.env, smtpUrl: smtp.url } };
    deps.emailWorker = worker(deps);
    const { row: projectRow } = await projectOf("Awake");
    await sendBuiltInEmail(deps, projectRow, {
      kind: "email_verification",
      to: "awake@example.com",
      variables: { link: verificationLink },
    });
    const message = await smtp.waitForMessageTo("awake@example.com");
    expect(message.subject).toBe("Verify your email at Awake");
  });

  it("takes back a message whose worker died mid-send, and leaves live claims alone", async () => {
    const { project } = await projectOf("Crashy");
    const make = (to: string) =>
      enqueueRenderedEmail(server.deps, project.id, {
        to: [to],
        subject: "s",
        html: "<p>h</p>",
        text: "h",
        kind: "custom",
      });
    const stale = await make("stale@example.com");
    const live = await make("live@example.com");
    await server.deps.db
      .update(sentEmails)
      .set({ status: "sending", attempts: 1, nextAttemptAt: new Date(Date.now() - 1000) })
      .where(eq(sentEmails.id, stale.id));
    await server.deps.db
      .update(sentEmails)
      .set({ status: "sending", attempts: 1, nextAttemptAt: new Date(Date.now() + 60_000) })
      .where(eq(sentEmails.id, live.id));
    await worker().drain();
    expect(await rowOf(project.id, stale.id)).toMatchObject({ status: "sent", attempts: 2 });
    expect(await rowOf(project.id, live.id)).toMatchObject({ status: "sending", attempts: 1 });
  });

  it("backs off exponentially up to a cap", () => {
    expect(retryDelayMs(1)).toBe(30_000);
    expect(retryDelayMs(2)).toBe(60_000);
    expect(retryDelayMs(4)).toBe(240_000);
    expect(retryDelayMs(20)).toBe(3_600_000);
  });

  it("does nothing after stop", async () => {
    const { project } = await projectOf("Stopped");
    const mailer = startEmailWorker(server.deps);
    await mailer.stop();
    const queued = await enqueueRenderedEmail(server.deps, project.id, {
      to: ["stopped@example.com"],
      subject: "s",
      html: "<p>h</p>",
      text: "h",
      kind: "custom",
    });
    mailer.wake();
    await mailer.drain();
    expect(await rowOf(project.id, queued.id)).toMatchObject({ status: "queued", attempts: 0 });
  });
});
