import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
import { closedPort, startTestSmtpServer, type TestSmtpServer } from "../../testing/smtp-server.ts";
import { sendBuiltInEmail } from "./built-in.ts";
import { detachBootWorker } from "./test-support.ts";
import { startEmailWorker } from "./worker.ts";

let server: TestServer;
let smtp: TestSmtpServer;
let project: TestProject;
let other: TestProject;

beforeAll(async () => {
  server = await createTestServer();
  await detachBootWorker(server);
  smtp = await startTestSmtpServer({ users: { mailer: "right-password" } });
  project = await server.createProject("Listing");
  other = await server.createProject("Other");
});
afterAll(async () => {
  await smtp.close();
  await server.close();
});

const link = "https://app.example.com/handler/password-reset?code=abc";

describe("GET /internal/emails", () => {
  it("lists the project's emails newest first, with delivery state and errors", async () => {
    const projectRow = { id: project.id, displayName: "Listing" };
    const first = await sendBuiltInEmail(server.deps, projectRow, {
      kind: "password_reset",
      to: "first@example.com",
      variables: { link },
    });
    const mailer = startEmailWorker(server.deps);
    await mailer.drain();
    // The second one fails: the project now points at a server that is down.
    await project.configure({
      "emails.server": { isShared: false, host: "127.0.0.1", port: await closedPort() },
    });
    const second = await sendBuiltInEmail(server.deps, projectRow, {
      kind: "email_verification",
      to: "second@example.com",
      variables: { link },
    });
    await mailer.drain();
    await mailer.stop();
    await sendBuiltInEmail(
      server.deps,
      { id: other.id, displayName: "Other" },
      {
        kind: "password_reset",
        to: "someone-else@example.com",
        variables: { link },
      },
    );

    const response = await server.request("/api/v1/internal/emails", { headers: project.headers("admin") });
    expect(response.status).toBe(200);
    expect(response.body.is_paginated).toBe(false);
    expect(response.body.items).toHaveLength(2);
    const [newest, oldest] = response.body.items;
    expect(newest).toMatchObject({
      id: second.id,
      to: ["second@example.com"],
      subject: "Verify your email at Listing",
      status: "queued",
      simple_status: "in-progress",
      attempts: 1,
      kind: "email_verification",
    });
    // Not sent yet: the protocol shows the creation time.
    expect(newest.sent_at_millis).toBe(newest.created_at_millis);
    expect(newest.error).toMatch(/^Send error: Could not connect to the email server/);
    expect(typeof newest.created_at_millis).toBe("number");
    expect(oldest).toMatchObject({
      id: first.id,
      to: ["first@example.com"],
      subject: "Reset your password at Listing",
      error: null,
      status: "sent",
      simple_status: "ok",
      attempts: 1,
      skipped_reason: null,
      kind: "password_reset",
    });
    expect(oldest.sent_at_millis).toBeGreaterThan(0);
    expect(Object.keys(oldest).sort()).toEqual(
      [
        "attempts",
        "created_at_millis",
        "error",
        "id",
        "kind",
        "sent_at_millis",
        "simple_status",
        "skipped_reason",
        "status",
        "subject",
        "to",
      ].sort(),
    );

    const others = await server.request("/api/v1/internal/emails", { headers: other.headers("admin") });
    expect(others.body.items.map((e: { to: string[] }) => e.to)).toEqual([["someone-else@example.com"]]);
  });

  it("honours ?limit and refuses a bad one", async () => {
    const limited = await server.request("/api/v1/internal/emails?limit=1", {
      headers: project.headers("admin"),
    });
    expect(limited.status).toBe(200);
    expect(limited.body.items).toHaveLength(1);
    for (const bad of ["0", "-1", "abc", "501", "1.5"]) {
      const response = await server.request(`/api/v1/internal/emails?limit=${bad}`, {
        headers: project.headers("admin"),
      });
      expect(response.status, bad).toBe(400);
      expect(response.headers.get("x-stack-known-error")).toBe("SCHEMA_ERROR");
    }
    const unknown = await server.request("/api/v1/internal/emails?offset=2", {
      headers: project.headers("admin"),
    });
    expect(unknown.status).toBe(400);
  });

  it("is for admins only", async () => {
    for (const access of ["client", "server"] as const) {
      const response = await server.request("/api/v1/internal/emails", { headers: project.headers(access) });
      expect(response.status).toBe(401);
      expect(response.headers.get("x-stack-known-error")).toBe("INSUFFICIENT_ACCESS_TYPE");
    }
  });

  it("is empty for a project that sent nothing", async () => {
    const fresh = await server.createProject("Fresh");
    const response = await server.request("/api/v1/internal/emails", { headers: fresh.headers("admin") });
    expect(response.body).toEqual({ items: [], is_paginated: false });
  });
});

describe("POST /internal/send-test-email", () => {
  const config = (overrides: Record<string, unknown> = {}) => ({
    host: "127.0.0.1",
    port: smtp.port,
    username: "mailer",
    password: "right-password",
    sender_email: "test-sender@listing.test",
    sender_name: "Listing Mail",
    ...overrides,
  });
  const sendTest = (body: unknown, headers = project.headers("admin")) =>
    server.request("/api/v1/internal/send-test-email", { method: "POST", headers, body });

  it("sends through the given server and reports success", async () => {
    const response = await sendTest({ recipient_email: "admin@example.com", email_config: config() });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ success: true });
    const message = await smtp.waitForMessageTo("admin@example.com");
    expect(message.from).toEqual({ name: "Listing Mail", address: "test-sender@listing.test" });
    expect(message.authenticatedUser).toBe("mailer");
    expect(message.subject).toBe("Test email from Listing");
  });

  it("reports a server that is down as an error message, not a failure of the call", async () => {
    const response = await sendTest({
      recipient_email: "admin@example.com",
      email_config: config({ port: await closedPort() }),
    });
    expect(response.status).toBe(200);
    expect(response.body.success).toBe(false);
    expect(response.body.error_message).toMatch(/Could not connect to the email server/);
  });

  it("reports a rejected login", async () => {
    const response = await sendTest({
      recipient_email: "admin@example.com",
      email_config: config({ password: "wrong-password" }),
    });
    expect(response.status).toBe(200);
    expect(response.body.success).toBe(false);
    expect(response.body.error_message).toMatch(/rejected the login/);
  });

  it("reports a host that does not resolve", async () => {
    const response = await sendTest({
      recipient_email: "admin@example.com",
      email_config: config({ host: "no-such-host.invalid" }),
    });
    expect(response.status).toBe(200);
    expect(response.body.success).toBe(false);
    expect(response.body.error_message).toBeTruthy();
  });

  it("refuses bad input with a schema error", async () => {
    const bad: unknown[] = [
      {},
      { email_config: config() },
      { recipient_email: "admin@example.com" },
      { recipient_email: "not-an-email", email_config: config() },
      { recipient_email: "admin@example.com", email_config: config({ port: "25" }) },
      { recipient_email: "admin@example.com", email_config: config({ port: 70000 }) },
      { recipient_email: "admin@example.com", email_config: config({ host: "" }) },
      { recipient_email: "admin@example.com", email_config: config({ sender_email: "nope" }) },
      { recipient_email: "admin@example.com", email_config: config({ extra: true }) },
    ];
    for (const body of bad) {
      const response = await sendTest(body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.headers.get("x-stack-known-error")).toBe("SCHEMA_ERROR");
    }
  });

  it("is for admins only", async () => {
    const response = await sendTest(
      { recipient_email: "admin@example.com", email_config: config() },
      project.headers("server"),
    );
    expect(response.status).toBe(401);
    expect(response.headers.get("x-stack-known-error")).toBe("INSUFFICIENT_ACCESS_TYPE");
  });
});
