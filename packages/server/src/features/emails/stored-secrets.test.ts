import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { generateSecureToken } from "../../crypto/index.ts";
import type { AppDeps } from "../../deps.ts";
import type { TestServer } from "../../testing/harness.ts";
import { codeFromEmail, latestEmailTo } from "../../testing/outbox.ts";
import { closedPort, type TestSmtpServer } from "../../testing/smtp-server.ts";
import { createSignedInUser } from "../../testing/users.ts";
import { settleAfterAnswer } from "./after-answer.ts";
import { readableEmail, redactText, sealMessage } from "./body.ts";
import { sendBuiltInEmail } from "./built-in.ts";
import { renderDueEmails } from "./render-step.ts";
import { type SentEmailRow, sentEmails } from "./schema.ts";
import { openEmailWorkerTestFile } from "./test-support.ts";
import type { EmailWorkerOptions } from "./worker.ts";

// Issue 19 item 5: a backup of `sent_emails` must not be a way to reset passwords or sign in.

let server: TestServer;
let smtp: TestSmtpServer;
const { startWorker } = openEmailWorkerTestFile((opened) => ({ server, smtp } = opened));

function drain(deps: AppDeps, options: EmailWorkerOptions = {}) {
  return startWorker(deps, options).drain();
}

/** A server in production mode on the same database; `smtpUrl` unset means the dev outbox. */
const production = (smtpUrl?: string): AppDeps => ({
  ...server.deps,
  env: { ...server.deps.env, isDevelopment: false, smtpUrl },
});

async function storedRow(projectId: string, id: string): Promise<SentEmailRow> {
  const [row] = await server.deps.db
    .select()
    .from(sentEmails)
    .where(and(eq(sentEmails.projectId, projectId), eq(sentEmails.id, id)));
  return row!;
}

/** Every column of the stored row, as a backup would show it, must be free of each secret, in any letter case. */
function expectNothingSecretIn(row: SentEmailRow, secrets: string[]) {
  const stored = JSON.stringify(row).toLowerCase();
  for (const secret of secrets) expect(stored).not.toContain(secret.toLowerCase());
}

/** A magic-link email with a real-looking code: the link carries all of it, the subject its first six characters. */
async function queueMagicLink(deps: AppDeps, name: string, to: string) {
  const project = await server.createProject(name);
  const code = generateSecureToken();
  const otp = code.slice(0, 6);
  const link = `http://localhost:3000/handler/magic-link-callback?code=${code}`;
  const queued = await sendBuiltInEmail(
    deps,
    { id: project.id, displayName: name },
    {
      kind: "magic_link",
      to,
      variables: { link, otp },
    },
  );
  return { project, queued, code, otp, link, secrets: [code, otp, link] };
}

describe("a queued email", () => {
  it("holds no code or link in the clear, only sealed, from the password reset route on", async () => {
    const project = await server.createProject("Sealed");
    const email = "sealed@example.com";
    await createSignedInUser(server, project.id, { primaryEmail: email, otpAuthEnabled: true });
    const sent = await server.request("/api/v1/auth/password/send-reset-code", {
      method: "POST",
      headers: project.headers("client"),
      body: { email, callback_url: "http://localhost:3000/handler/password-reset" },
    });
    expect(sent.status).toBe(200);
    await settleAfterAnswer(server.deps);

    // What the recipient gets is still all there, for the worker to send.
    const readable = await latestEmailTo(server, project.id, email);
    const code = codeFromEmail(readable.text);
    const row = await storedRow(project.id, readable.id);
    expect(row.status).toBe("queued");
    expect(row.bodyEncrypted).toMatch(/^v1\./);
    expectNothingSecretIn(row, [code]);
    expect(row.subject).toBe("Reset your password at Sealed");
    expect(row.text).toContain("[redacted]");
    expect(row.html).toContain("[redacted]");
  });

  it("takes the sign-in code out of a magic link's subject and body", async () => {
    const { project, queued, otp, secrets } = await queueMagicLink(server.deps, "Magic", "magic@example.com");
    // Waiting to be rendered: only the sealed variables hold the code.
    expectNothingSecretIn(await storedRow(project.id, queued.id), secrets);
    await renderDueEmails(server.deps);
    const row = await storedRow(project.id, queued.id);
    expect(row.status).toBe("queued");
    expectNothingSecretIn(row, secrets);
    expect(row.subject).toBe("Sign in to Magic: Your code is [redacted]");
    expect(readableEmail(server.deps.env, row).subject).toBe(
      `Sign in to Magic: Your code is ${otp.toUpperCase()}`,
    );
  });
});

describe("once delivered in production", () => {
  it("keeps what the sent list shows and nothing secret, after the SMTP server got the whole message", async () => {
    const deps = production(smtp.url);
    const { project, queued, secrets, link, otp } = await queueMagicLink(deps, "Prod", "prod@example.com");
    await drain(deps);

    const message = await smtp.waitForMessageTo("prod@example.com");
    expect(message.text).toContain(link);
    expect(message.subject).toBe(`Sign in to Prod: Your code is ${otp.toUpperCase()}`);

    const row = await storedRow(project.id, queued.id);
    expect(row).toMatchObject({ status: "sent", transport: "smtp", bodyEncrypted: null, attempts: 1 });
    expectNothingSecretIn(row, secrets);
    // Nothing sealed is left to open: what tests and a dev inbox would read is the redacted copy.
    expect(readableEmail(deps.env, row).text).not.toContain(link);

    const listed = await server.request("/api/v1/internal/emails", { headers: project.headers("admin") });
    expect(listed.status).toBe(200);
    expect(listed.body.items).toEqual([
      expect.objectContaining({
        id: queued.id,
        to: ["prod@example.com"],
        subject: "Sign in to Prod: Your code is [redacted]",
        status: "sent",
        error: null,
        kind: "magic_link",
        sent_at_millis: expect.any(Number),
      }),
    ]);
  });

  it("keeps nothing secret in the dev outbox either (no SMTP server configured)", async () => {
    const deps = production();
    const { project, queued, secrets } = await queueMagicLink(deps, "Prod outbox", "nosmtp@example.com");
    await drain(deps);
    const row = await storedRow(project.id, queued.id);
    expect(row).toMatchObject({ status: "sent", transport: "dev-outbox", bodyEncrypted: null });
    expectNothingSecretIn(row, secrets);
  });
});

describe("the dev outbox in development", () => {
  it("stays the developer's inbox: readable through the key, never in the clear", async () => {
    const { project, queued, secrets, link } = await queueMagicLink(server.deps, "Dev", "dev@example.com");
    await drain(server.deps);
    const row = await storedRow(project.id, queued.id);
    expect(row).toMatchObject({ status: "sent", transport: "dev-outbox" });
    expectNothingSecretIn(row, secrets);
    expect((await latestEmailTo(server, project.id, "dev@example.com")).text).toContain(link);
  });
});

describe("a message given up on", () => {
  it("drops the sealed body when delivery fails for good", async () => {
    const deps = production();
    const { project, queued, secrets } = await queueMagicLink(deps, "Doomed", "doomed@example.com");
    await project.configure({
      "emails.server": { isShared: false, host: "127.0.0.1", port: await closedPort() },
    });
    await drain(deps, { maxAttempts: 1 });
    const row = await storedRow(project.id, queued.id);
    expect(row).toMatchObject({ status: "failed", bodyEncrypted: null });
    expect(row.error).toMatch(/Could not connect/);
    expectNothingSecretIn(row, secrets);
  });

  it("fails for good, unsent, when the message was sealed under another GATEHOUSE_SECRET", async () => {
    const project = await server.createProject("Rekeyed");
    const sealedElsewhere = sealMessage(
      { secret: "another-secret-that-is-long-enough-to-be-used" },
      { subject: "s", html: "<p>h</p>", text: "h" },
    );
    const [row] = await server.deps.db
      .insert(sentEmails)
      .values({
        projectId: project.id,
        id: crypto.randomUUID(),
        to: ["rekeyed@example.com"],
        subject: "s",
        html: "[redacted]",
        text: "[redacted]",
        bodyEncrypted: sealedElsewhere,
        kind: "custom",
      })
      .returning();
    const received = smtp.messages.length;
    await drain(production(smtp.url));
    const after = await storedRow(project.id, row!.id);
    expect(after).toMatchObject({ status: "failed", bodyEncrypted: null, sentAt: null });
    expect(after.error).toMatch(/could not be read, so it was not sent/);
    expect(smtp.messages.length).toBe(received);
  });
});

describe("a row queued by an older version (no sealed body)", () => {
  it("is sent as it is, then redacted", async () => {
    const project = await server.createProject("Legacy");
    const code = generateSecureToken();
    const link = `http://localhost:3000/handler/password-reset?code=${code}`;
    const [row] = await server.deps.db
      .insert(sentEmails)
      .values({
        projectId: project.id,
        id: crypto.randomUUID(),
        to: ["legacy@example.com"],
        subject: "Reset your password at Legacy",
        html: `<a href="${link}">${link}</a>`,
        text: `Reset: ${link}`,
        kind: "password_reset",
      })
      .returning();
    await drain(production(smtp.url));
    expect((await smtp.waitForMessageTo("legacy@example.com")).text).toContain(link);
    const after = await storedRow(project.id, row!.id);
    expect(after).toMatchObject({ status: "sent", text: "Reset: [redacted]", bodyEncrypted: null });
    expectNothingSecretIn(after, [code]);
  });
});

describe("redactText", () => {
  const code = "abcdefghjkmnpqrstvwxyz0123456789abcdefghjkmnp";

  it("takes out the named secrets however the HTML escaped them, in any letter case", () => {
    const link = `https://app.example/cb?x=1&code=${code}`;
    const html = `<a href="https://app.example/cb?x=1&amp;code=${code}">go</a> <b>Q1W2E3</b> https://app.example/cb?x=1&#38;code=${code}`;
    const redacted = redactText(html, [link, "q1w2e3"]);
    expect(redacted).toBe('<a href="[redacted]">go</a> <b>[redacted]</b> [redacted]');
  });

  it("also takes out links with parameters and 45-character codes nobody named, and keeps plain links", () => {
    const text = `Open https://x.example/a#token=t0k or use ${code}. Logo: https://x.example/logo.png`;
    expect(redactText(text, [])).toBe("Open [redacted] or use [redacted]. Logo: https://x.example/logo.png");
  });

  it("does not hunt for secrets too short to be one (it would shred the text)", () => {
    expect(redactText("a b c", ["a"])).toBe("a b c");
  });
});
