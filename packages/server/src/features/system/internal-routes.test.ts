import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestServer, type TestServer } from "../../testing/harness.ts";
import { expectKnownError, uniqueEmail } from "../../testing/known-errors.ts";
import { emailsTo } from "../../testing/outbox.ts";
import { createSignedInUser } from "../../testing/users.ts";
import { backendUrls } from "./internal-routes.ts";

const operator = uniqueEmail("operator");
let server: TestServer;
beforeAll(async () => {
  server = await createTestServer({ internalFeedbackRecipients: [operator] });
});
afterAll(() => server.close());

describe("GET /internal/component-versions", () => {
  it("answers every page component at version 1, through /api/latest as the dev tool fetches it", async () => {
    const answer = await server.request("/api/latest/internal/component-versions");
    expect(answer.status).toBe(200);
    const pages = Object.keys(answer.body.versions);
    expect(pages).toEqual([
      "signIn",
      "signUp",
      "signOut",
      "emailVerification",
      "passwordReset",
      "forgotPassword",
      "oauthCallback",
      "magicLinkCallback",
      "accountSettings",
      "teamInvitation",
      "mfa",
      "error",
      "onboarding",
    ]);
    expect(answer.body.versions.signIn).toEqual({ version: 1, changelogs: { "1": "Initial version." } });
  });
});

describe("GET /internal/backend-urls", () => {
  it("lists this server's address, with the reference's development fallback", async () => {
    const answer = await server.request("/api/v1/internal/backend-urls");
    expect([answer.status, answer.body]).toEqual([200, { urls: backendUrls(server.deps.env.baseUrl) }]);
    expect(answer.body.urls[0]).toBe(server.deps.env.baseUrl);
    expect(backendUrls("http://localhost:8102")).toEqual(["http://localhost:8102", "http://localhost:8110"]);
    expect(backendUrls("http://localhost:9102/")).toEqual([
      "http://localhost:9102/",
      "http://localhost:9110",
    ]);
    expect(backendUrls("https://auth.example.com")).toEqual(["https://auth.example.com"]);
  });
});

describe("POST /internal/feedback", () => {
  it("without credentials, emails the operators from the internal project", async () => {
    const sender = uniqueEmail("feedback");
    const answer = await server.request("/api/v1/internal/feedback", {
      method: "POST",
      body: { name: "Ada <script>", email: sender, message: "The sign-in page is lovely." },
    });
    expect([answer.status, answer.body]).toEqual([200, { success: true }]);
    const [email] = await emailsTo(server, "internal", operator);
    expect(email?.subject).toBe(`[Feedback] ${sender}`);
    expect(email?.text).toContain("The sign-in page is lovely.");
    expect(email?.text).toContain(`From: Ada <script> <${sender}>`);
    expect(email?.html).toContain("Ada &#60;script&#62;");
    expect(email?.html).not.toContain("<script>");
  });

  it("with any access type, sends from the caller's project naming its user", async () => {
    const project = await server.createProject("Feedback project");
    const { user, accessToken } = await createSignedInUser(server, project.id);
    const sender = uniqueEmail("bug");
    const answer = await server.request("/api/v1/internal/feedback", {
      method: "POST",
      headers: project.headers("client", { "x-stack-access-token": accessToken }),
      body: { email: sender, message: "Broken button", feedback_type: "bug" },
    });
    expect([answer.status, answer.body]).toEqual([200, { success: true }]);
    const [email] = await emailsTo(server, project.id, operator);
    expect(email?.subject).toBe(`[Bug Report] ${sender}`);
    expect(email?.text).toContain(`User: ${user.id}`);
    expect(email?.text).toContain(`Project: ${project.id}`);
  });

  it("refuses a bad body and bad credentials", async () => {
    const post = (body: unknown, headers: Record<string, string> = {}) =>
      server.request("/api/v1/internal/feedback", { method: "POST", headers, body });
    expectKnownError(await post({ message: "no email" }), 400, "SCHEMA_ERROR");
    expectKnownError(await post({ email: uniqueEmail(), message: "x".repeat(5001) }), 400, "SCHEMA_ERROR");
    expectKnownError(
      await post({ email: uniqueEmail(), message: "hi", feedback_type: "praise" }),
      400,
      "SCHEMA_ERROR",
    );
    const wrongKey = await post(
      { email: uniqueEmail(), message: "hi" },
      {
        "x-stack-project-id": "internal",
        "x-stack-access-type": "server",
        "x-stack-secret-server-key": "ssk_wrong",
      },
    );
    expect(wrongKey.status).toBeGreaterThanOrEqual(400);
    expect(wrongKey.status).toBeLessThan(500);
  });
});
