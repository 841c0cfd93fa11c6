/**
 * `/internal/email-drafts` (PROTOCOL-EXTRA §1.5) and sending a draft with `send-email {draft_id}` (§1.7, variant C)
 * through the outbox worker to a real SMTP server.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_DARK_THEME_ID, DEFAULT_SELECTED_THEME_ID } from "../../email-rendering/index.ts";
import type { TestProject, TestServer } from "../../testing/harness.ts";
import type { TestSmtpServer } from "../../testing/smtp-server.ts";
import { createSignedInUser } from "../../testing/users.ts";
import { openSmtpDeliveryTestFile } from "../emails/test-support.ts";
import type { EmailWorker } from "../emails/worker.ts";
import { MARKETING_CATEGORY } from "../notifications/categories.ts";

let smtp: TestSmtpServer, server: TestServer, project: TestProject, worker: EmailWorker;
openSmtpDeliveryTestFile(
  { project: "Drafts Co", sender: { senderEmail: "news@drafts.example" }, worker: { intervalMs: 60_000 } },
  (opened) => ({ smtp, server, project, worker } = opened),
);

const api = (
  path: string,
  init: { method?: string; body?: unknown } = {},
  access: "admin" | "server" = "admin",
) => server.request(`/api/v1${path}`, { ...init, headers: project.headers(access) });

async function createDraft(body: Record<string, unknown>): Promise<string> {
  const created = await api("/internal/email-drafts", { method: "POST", body });
  expect(created.status, created.text).toBe(200);
  expect(Object.keys(created.body)).toEqual(["id"]);
  return created.body.id;
}

const DRAFT_SOURCE = `import { Text } from "@react-email/components";
import { NotificationCategory, Subject, type Props } from "@stackframe/emails";

export function EmailTemplate({ user }: Props) {
  return (
    <>
      <Subject value="Spring sale" />
      <NotificationCategory value="Marketing" />
      <Text>Hi {user.displayName}, everything is half price.</Text>
    </>
  );
}
`;

describe("draft CRUD", () => {
  it("creates from a Marketing starter, reads, lists newest-updated first, edits and deletes", async () => {
    const first = await createDraft({ display_name: "Starter" });
    const read = await api(`/internal/email-drafts/${first}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual({
      id: first,
      display_name: "Starter",
      tsx_source: expect.stringContaining('<NotificationCategory value="Marketing" />'),
      sent_at_millis: null,
    });
    // No theme_id key at all: the project's default theme.
    expect("theme_id" in read.body).toBe(false);

    const second = await createDraft({
      display_name: "Dark",
      theme_id: DEFAULT_DARK_THEME_ID,
      tsx_source: "x",
    });
    const third = await createDraft({ display_name: "Bare", theme_id: false });
    expect((await api(`/internal/email-drafts/${second}`)).body).toMatchObject({
      theme_id: DEFAULT_DARK_THEME_ID,
      tsx_source: "x",
    });
    expect((await api(`/internal/email-drafts/${third}`)).body.theme_id).toBe(false);

    const edited = await api(`/internal/email-drafts/${first}`, {
      method: "PATCH",
      body: { display_name: "Renamed", theme_id: false },
    });
    expect(edited.status, edited.text).toBe(200);
    expect(edited.body).toEqual({ ok: "ok" });
    const listed = await api("/internal/email-drafts");
    expect(listed.status).toBe(200);
    const ids = listed.body.drafts.map((d: { id: string }) => d.id);
    expect(ids.slice(0, 3)).toEqual([first, third, second]);
    expect(listed.body.drafts[0]).toMatchObject({ display_name: "Renamed", theme_id: false });

    const deleted = await api(`/internal/email-drafts/${third}`, { method: "DELETE" });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ ok: "ok" });
    expect((await api(`/internal/email-drafts/${third}`)).status).toBe(404);
  });

  it("resets the theme to the project default when a PATCH leaves theme_id out", async () => {
    const id = await createDraft({ display_name: "Quirk", theme_id: DEFAULT_DARK_THEME_ID });
    const patched = await api(`/internal/email-drafts/${id}`, {
      method: "PATCH",
      body: { tsx_source: "changed" },
    });
    expect(patched.status).toBe(200);
    const read = (await api(`/internal/email-drafts/${id}`)).body;
    expect(read.tsx_source).toBe("changed");
    expect(read.display_name).toBe("Quirk");
    expect("theme_id" in read).toBe(false);
  });

  it("answers unknown drafts with a plain 404 and unknown themes with a plain 400", async () => {
    for (const id of ["00000000-0000-4000-8000-000000000000", "not-a-uuid"]) {
      for (const method of ["GET", "PATCH", "DELETE"]) {
        const response = await api(`/internal/email-drafts/${id}`, {
          method,
          ...(method === "PATCH" ? { body: { display_name: "x" } } : {}),
        });
        expect(response.status, `${method} ${id}`).toBe(404);
        expect(response.headers.get("x-stack-known-error"), `${method} ${id}`).toBeNull();
      }
    }
    const unknownTheme = { display_name: "x", theme_id: "00000000-0000-4000-8000-000000000000" };
    const refused = await api("/internal/email-drafts", { method: "POST", body: unknownTheme });
    expect(refused.status).toBe(400);
    expect(refused.headers.get("x-stack-known-error")).toBeNull();
    const bad = await api("/internal/email-drafts", {
      method: "POST",
      body: { display_name: "x", surprise: 1 },
    });
    expect(bad.body.code).toBe("SCHEMA_ERROR");
  });

  it("is for admins only", async () => {
    const response = await api("/internal/email-drafts", {}, "server");
    expect(response.status).toBe(401);
  });
});

describe("sending a draft", () => {
  type Item = { id: string; to: { user_id: string }; theme_id: string | null };
  async function outboxItemsFor(userIds: string[]): Promise<Item[]> {
    const listed = await api("/emails/outbox?limit=100", {}, "server");
    return listed.body.items.filter((item: Item) => userIds.includes(item.to.user_id));
  }

  it("sends the draft's TSX in its own theme choice, tags the outbox rows and marks the draft sent", async () => {
    const ada = await createSignedInUser(server, project.id, {
      primaryEmail: "ada@drafts.example",
      displayName: "Ada",
    });
    const draftId = await createDraft({
      display_name: "Sale",
      tsx_source: DRAFT_SOURCE,
      theme_id: DEFAULT_DARK_THEME_ID,
    });

    const before = Date.now();
    const sent = await api(
      "/emails/send-email",
      { method: "POST", body: { user_ids: [ada.user.id], draft_id: draftId } },
      "server",
    );
    expect(sent.status, sent.text).toBe(200);
    expect(sent.body).toEqual({ results: [{ user_id: ada.user.id }] });

    const draft = (await api(`/internal/email-drafts/${draftId}`)).body;
    expect(draft.sent_at_millis).toBeGreaterThanOrEqual(before - 1000);

    await worker.drain();
    const message = await smtp.waitForMessageTo("ada@drafts.example");
    expect(message.subject).toBe("Spring sale");
    expect(message.text).toContain("Hi Ada, everything is half price.");

    const [item] = await outboxItemsFor([ada.user.id]);
    expect(item).toMatchObject({
      status: "sent",
      created_with: "draft",
      email_draft_id: draftId,
      email_programmatic_call_template_id: null,
      theme_id: DEFAULT_DARK_THEME_ID,
      notification_category_id: MARKETING_CATEGORY.id,
      kind: "draft",
    });
  });

  it("uses the request's theme_id over the draft's, and the project's selected theme for a default draft", async () => {
    const bob = await createSignedInUser(server, project.id, { primaryEmail: "bob@drafts.example" });
    const cy = await createSignedInUser(server, project.id, { primaryEmail: "cy@drafts.example" });
    const dark = await createDraft({ display_name: "Dark", theme_id: DEFAULT_DARK_THEME_ID });
    const plain = await createDraft({ display_name: "Default" });
    const send = (body: Record<string, unknown>) =>
      api("/emails/send-email", { method: "POST", body }, "server");
    expect((await send({ user_ids: [bob.user.id], draft_id: dark, theme_id: false })).status).toBe(200);
    expect((await send({ user_ids: [cy.user.id], draft_id: plain })).status).toBe(200);
    const [toBob] = await outboxItemsFor([bob.user.id]);
    const [toCy] = await outboxItemsFor([cy.user.id]);
    expect(toBob).toMatchObject({ theme_id: null, email_draft_id: dark, created_with: "draft" });
    expect(toCy).toMatchObject({ theme_id: DEFAULT_SELECTED_THEME_ID, email_draft_id: plain });
  });

  it("refuses an unknown or deleted draft with a plain 400, queues nothing and marks nothing", async () => {
    const dee = await createSignedInUser(server, project.id, { primaryEmail: "dee@drafts.example" });
    const gone = await createDraft({ display_name: "Gone" });
    await api(`/internal/email-drafts/${gone}`, { method: "DELETE" });
    const other = await server.createProject("Other Co");
    const othersDraft = await server.request("/api/v1/internal/email-drafts", {
      method: "POST",
      headers: other.headers("admin"),
      body: { display_name: "Not yours" },
    });
    for (const draftId of [gone, "nope", othersDraft.body.id]) {
      const response = await api(
        "/emails/send-email",
        { method: "POST", body: { user_ids: [dee.user.id], draft_id: draftId } },
        "server",
      );
      expect(response.status, draftId).toBe(400);
      expect(response.headers.get("x-stack-known-error"), draftId).toBeNull();
    }
    expect(await outboxItemsFor([dee.user.id])).toEqual([]);
    const othersRead = await server.request(`/api/v1/internal/email-drafts/${othersDraft.body.id}`, {
      headers: other.headers("admin"),
    });
    expect(othersRead.body.sent_at_millis).toBeNull();
  });
});
