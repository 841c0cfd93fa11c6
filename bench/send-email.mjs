#!/usr/bin/env node
// How fast does `POST /emails/send-email` to every user of a project go out? Boots a real Gatehouse in-process (as
// the tests do) with a real SMTP server, creates the users, then times three things: the one request that queues
// an email per user, the outbox worker rendering them, and the worker delivering them to the SMTP server. Once with
// raw HTML in the built-in theme (rendered in process) and once with an owner's own template (rendered in the
// QuickJS sandbox, batched per template). It imports the server's TypeScript sources, so it runs under tsx:
//   npx tsx --conditions=gatehouse-source --tsconfig packages/server/tsconfig.json bench/send-email.mjs [--users 1000]
// Embedded in-memory PGlite by default; with DATABASE_URL set, a fresh database on that server, dropped at the end.
import { randomUUID } from "node:crypto";
import { parseArgs } from "node:util";
import { and, eq, inArray, sql } from "drizzle-orm";
import { sentEmails } from "../packages/server/src/features/emails/schema.ts";
import { getRenderedConfig } from "../packages/server/src/features/projects/config-store.ts";
import { createUser } from "../packages/server/src/features/users/service.ts";
import { startListeningServer } from "../packages/server/src/testing/listening-server.ts";
import { startTestSmtpServer } from "../packages/server/src/testing/smtp-server.ts";

const { values: options } = parseArgs({ options: { users: { type: "string", default: "1000" } } });
const userCount = Number(options.users);
if (!Number.isInteger(userCount) || userCount < 1) {
  console.error(`--users must be a positive integer, got "${options.users}"`);
  process.exit(2);
}

const OWNER_TEMPLATE = `import { Heading, Text } from "@react-email/components";
import { NotificationCategory, Subject, type Props } from "@stackframe/emails";
import { type } from "arktype";

export const variablesSchema = type({ week: "number" });

export function EmailTemplate({ user, project, variables }: Props<typeof variablesSchema.infer>) {
  return (
    <>
      <Subject value={\`Week \${variables.week} at \${project.displayName}\`} />
      <NotificationCategory value="Transactional" />
      <Heading as="h1">Hello {user.displayName ?? "there"}</Heading>
      <Text>Here is what happened in week {variables.week}.</Text>
    </>
  );
}
`;

const smtp = await startTestSmtpServer();
// The bench measures throughput, not the per-project hourly capacity (PROTOCOL-EXTRA §1.10): lift it.
const server = await startListeningServer({ emailCapacityPerHour: 1_000_000 });
const { deps } = server.gatehouse;
try {
  const project = await server.createProject("Bench mailer");
  const templateId = randomUUID();
  await project.configure({
    "emails.server": {
      isShared: false,
      host: "127.0.0.1",
      port: smtp.port,
      senderEmail: "bench@example.com",
    },
    [`emails.templates.${templateId}`]: { displayName: "Weekly", tsxSource: OWNER_TEMPLATE },
  });
  const config = await getRenderedConfig(deps, project.id);
  process.stdout.write(`Creating ${userCount} users... `);
  for (let i = 0; i < userCount; i++) {
    await createUser(
      deps.db,
      project.id,
      config,
      { primaryEmail: `reader-${i}@bench.example`, displayName: `Reader ${i}` },
      deps.hooks,
    );
  }
  console.log("done.");

  const count = async (ids, statuses) => {
    const [row] = await deps.db
      .select({ n: sql`count(*)::int` })
      .from(sentEmails)
      .where(
        and(
          eq(sentEmails.projectId, project.id),
          inArray(sentEmails.id, ids),
          inArray(sentEmails.status, statuses),
        ),
      );
    return row.n;
  };
  /** Polls the outbox (the bench may wait; tests never do) until every row is past `statuses`. */
  const until = async (ids, statuses) => {
    const started = performance.now();
    while ((await count(ids, statuses)) > 0) await new Promise((resolve) => setTimeout(resolve, 50));
    return performance.now() - started;
  };

  for (const [label, body] of [
    [
      "raw HTML, built-in theme (in process)",
      { html: "<p>Weekly news for everyone.</p>", subject: "Weekly news" },
    ],
    ["owner's template (QuickJS sandbox)", { template_id: templateId, variables: { week: 47 } }],
  ]) {
    const receivedBefore = smtp.messages.length;
    const started = performance.now();
    const response = await server.request("/api/v1/emails/send-email", {
      method: "POST",
      headers: project.headers("server"),
      body: { all_users: true, ...body },
    });
    const queuedMs = performance.now() - started;
    if (response.status !== 200) throw new Error(`send-email answered ${response.status}: ${response.text}`);
    const rows = await deps.db
      .select({ id: sentEmails.id })
      .from(sentEmails)
      .where(
        and(
          eq(sentEmails.projectId, project.id),
          sql`${sentEmails.createdAt} >= now() - interval '10 minutes'`,
          inArray(sentEmails.status, ["preparing", "rendering", "queued", "sending"]),
        ),
      );
    const ids = rows.map((row) => row.id);
    const renderMs = await until(ids, ["preparing", "rendering"]);
    const deliverMs = await until(ids, ["queued", "sending"]);
    const received = smtp.messages.length - receivedBefore;
    const totalS = (queuedMs + renderMs + deliverMs) / 1000;
    console.log(`\n${label}, ${userCount} users:`);
    console.log(`  queued in one request   ${queuedMs.toFixed(0)} ms`);
    console.log(
      `  rendered                ${renderMs.toFixed(0)} ms  (${(userCount / (renderMs / 1000)).toFixed(0)} emails/s)`,
    );
    console.log(
      `  delivered over SMTP     ${deliverMs.toFixed(0)} ms  (${(userCount / (deliverMs / 1000)).toFixed(0)} emails/s)`,
    );
    console.log(
      `  end to end              ${totalS.toFixed(1)} s  (${(userCount / totalS).toFixed(0)} emails/s); SMTP server received ${received}`,
    );
  }
} finally {
  await server.close();
  await smtp.close();
}
