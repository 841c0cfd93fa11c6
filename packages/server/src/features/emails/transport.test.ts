/**
 * The email providers the config accepts (issue 13 item 5): `smtp` and `resend` deliver, `managed` is refused when
 * written (and, for a config stored before that check, every email fails with the same words instead of vanishing).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MANAGED_PROVIDER_REFUSAL } from "../../config/email-server.ts";
import { defaultRenderedConfig } from "../../config/index.ts";
import { createTestServer, type TestProject, type TestServer, testEnv } from "../../testing/harness.ts";
import { RESEND_SMTP, resolveDelivery } from "./transport.ts";

let server: TestServer;
let project: TestProject;

beforeAll(async () => {
  server = await createTestServer();
  project = await server.createProject("Providers Co");
});
afterAll(() => server.close());

const writeServer = (value: Record<string, unknown>) =>
  server.request("/api/v1/internal/config/override/environment", {
    method: "PATCH",
    headers: project.headers("admin"),
    body: { config_override_string: JSON.stringify({ "emails.server": value }) },
  });

describe("email providers", () => {
  it("refuses the managed provider and a Resend server without its API key, in words, storing nothing", async () => {
    const managed = await writeServer({ isShared: false, provider: "managed", senderEmail: "a@b.example" });
    expect(managed.status).toBe(400);
    expect(managed.text).toContain(
      'The "managed" email provider uses mail domains hosted by the reference platform',
    );
    const keyless = await writeServer({ isShared: false, provider: "resend", senderEmail: "a@b.example" });
    expect(keyless.status).toBe(400);
    expect(keyless.text).toContain("the Resend provider needs a Resend API key as the password");
    const stored = await server.request("/api/v1/internal/config/override/environment", {
      headers: project.headers("admin"),
    });
    expect(stored.text).not.toContain("managed");
  });

  it("sends Resend mail through Resend's SMTP relay with TLS, the user resend and the API key", async () => {
    const accepted = await writeServer({
      isShared: false,
      provider: "resend",
      password: "re_test_key",
      senderEmail: "hello@resend-user.example",
      senderName: "Resend User",
    });
    expect(accepted.status, accepted.text).toBe(200);
    const config = defaultRenderedConfig();
    const delivery = resolveDelivery(testEnv(), "Providers Co", {
      ...config.emails.server,
      isShared: false,
      provider: "resend",
      password: "re_test_key",
      senderEmail: "hello@resend-user.example",
      senderName: "Resend User",
    });
    expect(delivery).toMatchObject({
      kind: "smtp",
      source: "project",
      options: {
        host: RESEND_SMTP.host,
        port: 465,
        secure: true,
        auth: { user: "resend", pass: "re_test_key" },
      },
      from: { name: "Resend User", address: "hello@resend-user.example" },
    });
  });

  it("fails every email of a stored managed config with the refusal's words", () => {
    const config = defaultRenderedConfig();
    const delivery = resolveDelivery(testEnv(), "Old Co", {
      ...config.emails.server,
      isShared: false,
      provider: "managed",
    });
    expect(delivery).toEqual({ kind: "misconfigured", error: MANAGED_PROVIDER_REFUSAL });
  });
});
