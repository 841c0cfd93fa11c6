/**
 * The email cron routes (PROTOCOL-EXTRA §1.8, §1.12, §8.13), called as the reference's cron calls them: a bearer
 * `CRON_SECRET`, the queue step with `only_one_step`, the digest with and without `dry_run`.
 */
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomUuid } from "../../crypto/index.ts";
import { NEW_TEMPLATE_SOURCE } from "../../email-rendering/built-in-templates.ts";
import { createTestServer, type TestServer } from "../../testing/harness.ts";
import { expectKnownError, expectPlainError, uniqueEmail } from "../../testing/known-errors.ts";
import { emailsTo } from "../../testing/outbox.ts";
import { createSignedInUser } from "../../testing/users.ts";
import { enqueueTemplateEmails } from "./outbox.ts";
import { sentEmails } from "./schema.ts";

const CRON_SECRET = "cron-secret-for-tests";
let server: TestServer;
beforeAll(async () => {
  server = await createTestServer({ cronSecret: CRON_SECRET });
});
afterAll(() => server.close());

const cron = (method: "GET" | "POST", path: string, authorization?: string) =>
  server.request(`/api/v1${path}`, {
    method,
    headers: authorization === undefined ? {} : { authorization },
  });

/** A project owned by a team of the internal project whose one member has this primary email. */
async function ownedProject(ownerEmail: string) {
  const owner = await createSignedInUser(server, "internal", {
    primaryEmail: ownerEmail,
    primaryEmailVerified: true,
  });
  const team = await server.request("/api/v1/teams", {
    method: "POST",
    headers: server.internal.headers("server"),
    body: { display_name: "Owners", creator_user_id: owner.user.id },
  });
  const project = await server.request("/api/v1/internal/projects", {
    method: "POST",
    headers: server.internal.headers("client", { "x-stack-access-token": owner.accessToken }),
    body: { display_name: "Mailer", owner_team_id: team.body.id },
  });
  expect(project.status, project.text).toBe(201);
  return project.body.id as string;
}

/** An outbox row that gave up sending, as the worker leaves one after its last attempt. */
async function failedEmail(projectId: string, subject: string, to: string, failedAt = new Date()) {
  await server.deps.db.insert(sentEmails).values({
    projectId,
    id: randomUuid(),
    to: [to],
    subject,
    kind: "test",
    status: "failed",
    failedAt,
    error: "550 mailbox unavailable",
  });
}

describe("cron authorization", () => {
  it("wants the bearer CRON_SECRET: none is a SCHEMA_ERROR, a wrong one a plain 401", async () => {
    for (const [method, path] of [
      ["GET", "/internal/email-queue-step"],
      ["POST", "/internal/failed-emails-digest?dry_run=true"],
    ] as const) {
      expectKnownError(await cron(method, path), 400, "SCHEMA_ERROR");
      expectPlainError(await cron(method, path, "Bearer wrong"), 401, "Unauthorized");
      expectPlainError(await cron(method, path, CRON_SECRET), 401, "Unauthorized");
    }
    const unset = await createTestServer();
    try {
      const answer = await unset.request("/api/v1/internal/email-queue-step", {
        headers: { authorization: "Bearer " },
      });
      expectPlainError(answer, 401, "Unauthorized");
    } finally {
      await unset.close();
    }
  });
});

describe("GET /internal/email-queue-step", () => {
  it("renders what is due and answers {ok: true}", async () => {
    const project = await server.createProject("Queue");
    // What any send queues: a template to render, here the starter a new template gets.
    await enqueueTemplateEmails(server.deps, project.id, [
      {
        recipient: { type: "custom-emails", emails: [uniqueEmail("queued")] },
        tsxSource: NEW_TEMPLATE_SOURCE,
        themeId: null,
        variables: { count: 3 },
        kind: "test",
      },
    ]);
    const status = async () =>
      (await server.deps.db.select().from(sentEmails).where(eq(sentEmails.projectId, project.id)))[0]?.status;
    expect(await status()).toBe("preparing");
    const step = await cron("GET", "/internal/email-queue-step?only_one_step=true", `Bearer ${CRON_SECRET}`);
    expect([step.status, step.body]).toEqual([200, { ok: true }]);
    expect(await status()).toBe("queued");
    expectKnownError(
      await cron("GET", "/internal/email-queue-step?only_one_step=maybe", `Bearer ${CRON_SECRET}`),
      400,
      "SCHEMA_ERROR",
    );
  });
});

describe("POST /internal/failed-emails-digest", () => {
  it("lists each project's failed emails of the last day with its owners, and mails the owners unless a dry run", async () => {
    const ownerEmail = uniqueEmail("owner");
    const projectId = await ownedProject(ownerEmail);
    await failedEmail(projectId, "Your code", "someone@example.com");
    await failedEmail(projectId, "Old news", "late@example.com", new Date(Date.now() - 2 * 24 * 3600_000));
    // A project without owners has nobody to tell.
    const orphan = await server.createProject("Orphan");
    await failedEmail(orphan.id, "Nobody reads this", "x@example.com");

    const dry = await cron("POST", "/internal/failed-emails-digest?dry_run=true", `Bearer ${CRON_SECRET}`);
    expect(dry.status, dry.text).toBe(200);
    const mine = dry.body.failed_emails_by_tenancy.find(
      (each: { project_id: string }) => each.project_id === projectId,
    );
    expect(mine).toEqual({
      emails: [{ subject: "Your code", to: ["someone@example.com"] }],
      tenant_owner_emails: [ownerEmail],
      project_id: projectId,
      tenancy_id: projectId,
    });
    expect(dry.body.success).toBe(true);
    expect(
      dry.body.failed_emails_by_tenancy.map((each: { project_id: string }) => each.project_id),
    ).not.toContain(orphan.id);
    expect(await emailsTo(server, "internal", ownerEmail)).toEqual([]);

    const sent = await cron("POST", "/internal/failed-emails-digest", `Bearer ${CRON_SECRET}`);
    expect(sent.status, sent.text).toBe(200);
    const [digest] = await emailsTo(server, "internal", ownerEmail);
    expect(digest?.subject).toBe("1 email(s) of Mailer failed to send");
    expect(digest?.text).toContain("Your code to someone@example.com");
    expect(digest?.text).not.toContain("Old news");
  });
});
