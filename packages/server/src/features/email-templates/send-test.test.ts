/** The editor's "Send a test": the template as previewed, to one address, through the project's own server. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUILT_IN_TEMPLATE_IDS } from "../../email-rendering/index.ts";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
import { startTestSmtpServer, type TestSmtpServer } from "../../testing/smtp-server.ts";
import { type EmailWorker, startEmailWorker } from "../emails/worker.ts";

let server: TestServer;
let smtp: TestSmtpServer;
let worker: EmailWorker;
let project: TestProject;
const VERIFICATION = BUILT_IN_TEMPLATE_IDS.email_verification;

beforeAll(async () => {
  smtp = await startTestSmtpServer();
  server = await createTestServer();
  worker = startEmailWorker(server.deps);
  project = await server.createProject("Test sender");
  await project.configure({ "emails.server": { isShared: false, host: "127.0.0.1", port: smtp.port } });
});
afterAll(async () => {
  await worker.stop();
  await server.close();
  await smtp.close();
});

const sendTest = (templateId: string, body: unknown, target = project) =>
  server.request(`/api/v1/internal/email-templates/${templateId}/send-test`, {
    method: "POST",
    headers: target.headers("admin"),
    body,
  });

describe("POST /internal/email-templates/{id}/send-test", () => {
  it("sends the template as previewed, with the given variables, marked as a test", async () => {
    const response = await sendTest(VERIFICATION, {
      recipient_email: "Owner@Example.com",
      variables: { emailVerificationLink: "https://app.example/verify?code=preview-code" },
    });
    expect(response.status, response.text).toBe(200);
    await worker.drain();
    const message = await smtp.waitForMessageTo("owner@example.com");
    expect(message.subject).toBe("[Test] Verify your email at Test sender");
    expect(message.html).toContain("https://app.example/verify?code=preview-code");

    // An unsaved edit is what gets sent.
    const edited = await sendTest(VERIFICATION, {
      recipient_email: "editor@example.com",
      tsx_source: `import { Text } from "@react-email/components";
import { NotificationCategory, Subject } from "@stackframe/emails";
export function EmailTemplate() {
  return (<><Subject value="Draft subject" /><NotificationCategory value="Transactional" /><Text>Unsaved words</Text></>);
}`,
      theme_id: false,
    });
    expect(edited.status, edited.text).toBe(200);
    await worker.drain();
    const draft = await smtp.waitForMessageTo("editor@example.com");
    expect(draft.subject).toBe("[Test] Draft subject");
    expect(draft.text).toContain("Unsaved words");
  });

  it("answers bad input with 4xx and sends nothing", async () => {
    const broken = await sendTest(VERIFICATION, {
      recipient_email: "x@example.com",
      tsx_source: "export const = ;",
    });
    expect(broken.status).toBe(400);
    expect(broken.body.code).toBe("EMAIL_RENDERING_ERROR");
    expect(
      (await sendTest("00000000-0000-4000-8000-000000000000", { recipient_email: "x@example.com" })).status,
    ).toBe(404);
    const unknownTheme = await sendTest(VERIFICATION, {
      recipient_email: "x@example.com",
      theme_id: "00000000-0000-4000-8000-000000000000",
    });
    expect(unknownTheme.status).toBe(400);
    expect((await sendTest(VERIFICATION, { recipient_email: "not an address" })).body.code).toBe(
      "SCHEMA_ERROR",
    );
    const shared = await server.createProject("Shared sender");
    expect((await sendTest(VERIFICATION, { recipient_email: "x@example.com" }, shared)).body.code).toBe(
      "REQUIRES_CUSTOM_EMAIL_SERVER",
    );
    await worker.drain();
    expect(smtp.messages.filter((m) => m.envelope.to.includes("x@example.com"))).toEqual([]);
  });
});
