/**
 * The identity flows end to end through a real SMTP server: the emails arrive over SMTP, and the links and codes in
 * them complete sign-up verification, password reset and email-code sign-in.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { TestProject, TestServer } from "../../testing/harness.ts";
import { codeFromEmail } from "../../testing/outbox.ts";
import type { TestSmtpServer } from "../../testing/smtp-server.ts";
import { openSmtpDeliveryTestFile } from "./test-support.ts";
import type { EmailWorker } from "./worker.ts";

let smtp: TestSmtpServer, server: TestServer, project: TestProject, worker: EmailWorker;
openSmtpDeliveryTestFile(
  { project: "Mail Flows", serverEnv: (started) => ({ smtpUrl: started.url }) },
  (opened) => ({ smtp, server, project, worker } = opened),
);
beforeAll(async () => {
  const patched = await server.request("/api/v1/internal/projects/current", {
    method: "PATCH",
    headers: project.headers("admin"),
    body: { config: { magic_link_enabled: true } },
  });
  expect(patched.status).toBe(200);
});

async function receive(address: string) {
  await worker.drain();
  const message = await smtp.waitForMessageTo(address);
  return { message, code: codeFromEmail(message.text ?? "") };
}

describe("flows completed from emails received over SMTP", () => {
  it("verifies the email given at sign-up", async () => {
    const email = "verify@example.com";
    const signUp = await server.request("/api/v1/auth/password/sign-up", {
      method: "POST",
      headers: project.headers("client"),
      body: {
        email,
        password: "a long enough password",
        verification_callback_url: "http://localhost:3000/handler/email-verification",
      },
    });
    expect(signUp.status).toBe(200);
    const { message, code } = await receive(email);
    expect(message.subject).toBe("Verify your email at Mail Flows");
    expect(message.text).toContain("http://localhost:3000/handler/email-verification?code=");

    const verify = await server.request("/api/v1/contact-channels/verify", {
      method: "POST",
      headers: project.headers("client"),
      body: { code },
    });
    expect(verify.body).toEqual({ success: true });
    const user = await server.request(`/api/v1/users/${signUp.body.user_id}`, {
      headers: project.headers("server"),
    });
    expect(user.body.primary_email_verified).toBe(true);
  });

  it("resets a forgotten password", async () => {
    const email = "reset@example.com";
    await server.request("/api/v1/auth/password/sign-up", {
      method: "POST",
      headers: project.headers("client"),
      body: { email, password: "the old password" },
    });
    await server.request("/api/v1/auth/password/send-reset-code", {
      method: "POST",
      headers: project.headers("client"),
      body: { email, callback_url: "http://localhost:3000/handler/password-reset" },
    });
    const { message, code } = await receive(email);
    expect(message.subject).toBe("Reset your password at Mail Flows");
    const reset = await server.request("/api/v1/auth/password/reset", {
      method: "POST",
      headers: project.headers("client"),
      body: { code, password: "the new password" },
    });
    expect(reset.body).toEqual({ success: true });
    const oldPassword = await server.request("/api/v1/auth/password/sign-in", {
      method: "POST",
      headers: project.headers("client"),
      body: { email, password: "the old password" },
    });
    expect(oldPassword.headers.get("x-stack-known-error")).toBe("EMAIL_PASSWORD_MISMATCH");
    const newPassword = await server.request("/api/v1/auth/password/sign-in", {
      method: "POST",
      headers: project.headers("client"),
      body: { email, password: "the new password" },
    });
    expect(newPassword.status).toBe(200);
  });

  it("signs in with the code typed from the email", async () => {
    const email = "otp@example.com";
    const sent = await server.request("/api/v1/auth/otp/send-sign-in-code", {
      method: "POST",
      headers: project.headers("client"),
      body: { email, callback_url: "http://localhost:3000/handler/magic-link-callback" },
    });
    expect(sent.status).toBe(200);
    const { message, code } = await receive(email);
    const typed = /Your code is ([0-9A-Z]{6})/.exec(message.subject ?? "")![1]!;
    expect(typed.toLowerCase()).toBe(code.slice(0, 6));
    const signIn = await server.request("/api/v1/auth/otp/sign-in", {
      method: "POST",
      headers: project.headers("client"),
      body: { code: typed + sent.body.nonce },
    });
    expect(signIn.status).toBe(200);
    expect(signIn.body.is_new_user).toBe(true);
  });
});
