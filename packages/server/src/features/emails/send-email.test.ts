/**
 * `POST /emails/send-email` through the whole outbox: queued in the request, rendered and delivered by the worker
 * to a real SMTP server, with categories, unsubscribe links and skips (PROTOCOL-EXTRA §1.7, §1.8, §1.11).
 */
import { describe, expect, it } from "vitest";
import type { TestProject, TestServer } from "../../testing/harness.ts";
import type { ReceivedEmail, TestSmtpServer } from "../../testing/smtp-server.ts";
import { expireCode } from "../../testing/time.ts";
import { createSignedInUser } from "../../testing/users.ts";
import { MARKETING_CATEGORY } from "../notifications/categories.ts";
import { openSmtpDeliveryTestFile } from "./test-support.ts";
import type { EmailWorker } from "./worker.ts";

let smtp: TestSmtpServer, server: TestServer, project: TestProject, worker: EmailWorker;
openSmtpDeliveryTestFile(
  {
    project: "Newsletter Co",
    sender: { senderEmail: "news@newsletter.example", senderName: "Newsletter Co" },
  },
  (opened) => ({ smtp, server, project, worker } = opened),
);

const send = (body: unknown, access: "server" | "admin" | "client" = "server", target = project) =>
  server.request("/api/v1/emails/send-email", { method: "POST", headers: target.headers(access), body });

/** The outbox rows made for these users by the latest send, newest first. */
async function itemsFor(userIds: string[]) {
  const listed = await server.request("/api/v1/emails/outbox?limit=100", {
    headers: project.headers("server"),
  });
  expect(listed.status).toBe(200);
  return listed.body.items.filter((item: { to: { user_id?: string } }) =>
    userIds.includes(item.to.user_id ?? ""),
  );
}

type ListHeaders = { unsubscribe?: { url?: string; id?: string }; "unsubscribe-post"?: { name?: string } };

/**
 * The `List-Unsubscribe` link of a received email. The parser files List-* headers under `list`, and reads
 * `<url> (Unsubscribe)` as a link with a name, putting the link in `url` or `id` depending on its scheme.
 */
function unsubscribeHeaderUrl(message: ReceivedEmail): string | undefined {
  const list = message.headers.get("list") as ListHeaders | undefined;
  return list?.unsubscribe?.url ?? list?.unsubscribe?.id;
}

const MARKETING_TEMPLATE = `import { Text } from "@react-email/components";
import { NotificationCategory, Subject, type Props } from "@stackframe/emails";
import { type } from "arktype";

export const variablesSchema = type({ offer: "string" });

export function EmailTemplate({ user, variables }: Props<typeof variablesSchema.infer>) {
  return (
    <>
      <Subject value={\`An offer for \${user.displayName}\`} />
      <NotificationCategory value="Marketing" />
      <Text>Hello {user.displayName}, today: {variables.offer}</Text>
    </>
  );
}
`;

describe("sending HTML to users", () => {
  it("delivers one email per user, to their primary address, and reports each user", async () => {
    const ada = await createSignedInUser(server, project.id, {
      primaryEmail: "ada@example.com",
      displayName: "Ada",
    });
    const bob = await createSignedInUser(server, project.id, { primaryEmail: "bob@example.com" });
    const nobody = await createSignedInUser(server, project.id, { displayName: "No Address" });
    const ids = [ada.user.id, bob.user.id, nobody.user.id];

    const response = await send({ user_ids: ids, html: "<p>Our <b>news</b></p>", subject: "Monthly news" });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ results: ids.map((user_id) => ({ user_id })) });

    await worker.drain();
    const toAda = await smtp.waitForMessageTo("ada@example.com");
    expect(toAda.subject).toBe("Monthly news");
    expect(toAda.html).toContain("<b>news</b>");
    expect(toAda.from).toEqual({ name: "Newsletter Co", address: "news@newsletter.example" });
    // No category was given and raw HTML has no marker: nothing to unsubscribe from.
    expect(unsubscribeHeaderUrl(toAda)).toBeUndefined();
    await smtp.waitForMessageTo("bob@example.com");

    const items = await itemsFor(ids);
    const byUser = new Map(items.map((item: { to: { user_id: string } }) => [item.to.user_id, item]));
    expect(byUser.get(ada.user.id)).toMatchObject({
      status: "sent",
      simple_status: "ok",
      subject: "Monthly news",
    });
    expect(byUser.get(nobody.user.id)).toMatchObject({
      status: "skipped",
      skipped_reason: "USER_HAS_NO_PRIMARY_EMAIL",
    });
  });

  it("queues for every user with all_users", async () => {
    const other = await server.createProject("Everyone");
    await other.configure({ "emails.server": { isShared: false, host: "127.0.0.1", port: smtp.port } });
    const users = await Promise.all(
      ["e1", "e2", "e3"].map((name) =>
        createSignedInUser(server, other.id, { primaryEmail: `${name}@all.example` }),
      ),
    );
    const response = await send({ all_users: true, html: "<p>hi</p>" }, "server", other);
    expect(response.status).toBe(200);
    expect(response.body.results.map((r: { user_id: string }) => r.user_id).sort()).toEqual(
      users.map((u) => u.user.id).sort(),
    );
    await worker.drain();
    for (const name of ["e1", "e2", "e3"]) await smtp.waitForMessageTo(`${name}@all.example`);
  });
});

describe("categories and unsubscribing", () => {
  it("skips users who turned Marketing off and gives the others a working one-click unsubscribe link", async () => {
    await project.configure({
      "emails.templates.4d4f7a0e-6a57-4d3c-9d7a-2b8f0c1e5a11": {
        displayName: "Offer",
        tsxSource: MARKETING_TEMPLATE,
      },
    });
    const keen = await createSignedInUser(server, project.id, {
      primaryEmail: "keen@example.com",
      displayName: "Keen",
    });
    const done = await createSignedInUser(server, project.id, {
      primaryEmail: "done@example.com",
      displayName: "Done",
    });
    const off = await server.request(
      `/api/v1/emails/notification-preference/${done.user.id}/${MARKETING_CATEGORY.id}`,
      { method: "PATCH", headers: project.headers("server"), body: { enabled: false } },
    );
    expect(off.status).toBe(200);

    const response = await send({
      user_ids: [keen.user.id, done.user.id],
      template_id: "4d4f7a0e-6a57-4d3c-9d7a-2b8f0c1e5a11",
      variables: { offer: "two for one" },
    });
    expect(response.status).toBe(200);
    await worker.drain();

    const message = await smtp.waitForMessageTo("keen@example.com");
    expect(message.subject).toBe("An offer for Keen");
    expect(message.text).toContain("today: two for one");
    const unsubscribeUrl = unsubscribeHeaderUrl(message) ?? "";
    expect(unsubscribeUrl).toMatch(/\/api\/v1\/emails\/unsubscribe-link\?code=[0-9a-z]{45}$/);
    expect((message.headers.get("list") as ListHeaders)["unsubscribe-post"]?.name).toBe(
      "List-Unsubscribe=One-Click",
    );
    // The theme shows the same link in the footer.
    expect(message.html).toContain(unsubscribeUrl);

    const [keenItem, doneItem] = [(await itemsFor([keen.user.id]))[0], (await itemsFor([done.user.id]))[0]];
    expect(keenItem).toMatchObject({ status: "sent", notification_category_id: MARKETING_CATEGORY.id });
    expect(keenItem.is_transactional).toBe(false);
    expect(doneItem).toMatchObject({ status: "skipped", skipped_reason: "USER_UNSUBSCRIBED" });
    // The stored copy does not hold the link: a backup must not unsubscribe anyone.
    expect(JSON.stringify(keenItem)).not.toContain(unsubscribeUrl.split("code=")[1]);

    // A mail client's one-click request (RFC 8058) turns Marketing off.
    const path = new URL(unsubscribeUrl).pathname + new URL(unsubscribeUrl).search;
    const oneClick = await server.app.request(path, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "List-Unsubscribe=One-Click",
    });
    expect(oneClick.status).toBe(200);
    expect(await oneClick.text()).toContain("unsubscribed from marketing emails");
    const preferences = await server.request(`/api/v1/emails/notification-preference/${keen.user.id}`, {
      headers: project.headers("server"),
    });
    expect(
      preferences.body.items.find(
        (p: { notification_category_id: string }) => p.notification_category_id === MARKETING_CATEGORY.id,
      ),
    ).toMatchObject({ enabled: false });
    // Opening the link again says so, still 200.
    const again = await server.app.request(path);
    expect(again.status).toBe(200);
    expect(await again.text()).toContain("already unsubscribed");

    // The next Marketing send skips the user.
    const next = await send({
      user_ids: [keen.user.id],
      html: "<p>more</p>",
      notification_category_name: "Marketing",
    });
    expect(next.status).toBe(200);
    await worker.drain();
    expect((await itemsFor([keen.user.id]))[0]).toMatchObject({
      status: "skipped",
      skipped_reason: "USER_UNSUBSCRIBED",
    });
  });

  it("answers bad unsubscribe codes with the protocol's errors", async () => {
    const short = await server.app.request("/api/v1/emails/unsubscribe-link?code=abc");
    expect(short.status).toBe(400);
    const unknown = await server.request(`/api/v1/emails/unsubscribe-link?code=${"a".repeat(45)}`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe("VERIFICATION_CODE_NOT_FOUND");

    const user = await createSignedInUser(server, project.id, { primaryEmail: "late@example.com" });
    await send({ user_ids: [user.user.id], html: "<p>x</p>", notification_category_name: "Marketing" });
    await worker.drain();
    const message = await smtp.waitForMessageTo("late@example.com");
    const code = /code=([0-9a-z]{45})/.exec(message.text)![1]!;
    await expireCode(server, code);
    const expired = await server.request(`/api/v1/emails/unsubscribe-link?code=${code}`);
    expect(expired.body.code).toBe("VERIFICATION_CODE_EXPIRED");
  });

  it("sends Transactional email to users who turned Marketing off", async () => {
    const user = await createSignedInUser(server, project.id, { primaryEmail: "receipts@example.com" });
    await server.request(`/api/v1/emails/notification-preference/${user.user.id}/${MARKETING_CATEGORY.id}`, {
      method: "PATCH",
      headers: project.headers("server"),
      body: { enabled: false },
    });
    await send({
      user_ids: [user.user.id],
      html: "<p>receipt</p>",
      notification_category_name: "Transactional",
    });
    await worker.drain();
    const message = await smtp.waitForMessageTo("receipts@example.com");
    expect(unsubscribeHeaderUrl(message)).toBeUndefined();
  });
});

describe("bad requests", () => {
  it("answers each mistake with the protocol's error, in order, and queues nothing", async () => {
    const user = await createSignedInUser(server, project.id, { primaryEmail: "careful@example.com" });
    const cases: [unknown, number, string | null][] = [
      [{ html: "<p>x</p>" }, 400, "SCHEMA_ERROR"],
      [{ user_ids: [user.user.id], all_users: true, html: "<p>x</p>" }, 400, "SCHEMA_ERROR"],
      [{ user_ids: [user.user.id] }, 400, "SCHEMA_ERROR"],
      [{ user_ids: [user.user.id], html: "x", variables: { a: 1 } }, 400, "SCHEMA_ERROR"],
      [
        { user_ids: [user.user.id], html: "x", template_id: "4d4f7a0e-6a57-4d3c-9d7a-2b8f0c1e5a11" },
        400,
        "SCHEMA_ERROR",
      ],
      [{ user_ids: ["not-a-uuid"], html: "x" }, 400, "SCHEMA_ERROR"],
      [{ user_ids: [user.user.id], html: "x", surprise: 1 }, 400, "SCHEMA_ERROR"],
      [{ user_ids: [user.user.id], html: "x", notification_category_name: "Spam" }, 400, null],
      [{ user_ids: [user.user.id], template_id: "00000000-0000-4000-8000-000000000000" }, 400, null],
      [{ user_ids: [user.user.id], html: "x", theme_id: "00000000-0000-4000-8000-000000000000" }, 400, null],
      [{ user_ids: [user.user.id], draft_id: "nope" }, 400, null],
    ];
    for (const [body, status, code] of cases) {
      const response = await send(body);
      expect(response.status, JSON.stringify(body)).toBe(status);
      if (code) expect(response.body.code, JSON.stringify(body)).toBe(code);
      else expect(response.text, JSON.stringify(body)).toMatch(/\w/);
    }
    const missing = await send({
      user_ids: [user.user.id, "00000000-0000-4000-8000-000000000001"],
      html: "x",
    });
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({
      code: "USER_ID_DOES_NOT_EXIST",
      details: { user_id: "00000000-0000-4000-8000-000000000001" },
    });
    expect(await itemsFor([user.user.id])).toEqual([]);
  });

  it("refuses clients, and projects on the shared email server", async () => {
    expect((await send({ all_users: true, html: "x" }, "client")).status).toBe(401);
    const shared = await server.createProject("Shared");
    const refused = await send({ all_users: true, html: "x" }, "server", shared);
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe("REQUIRES_CUSTOM_EMAIL_SERVER");
  });
});
