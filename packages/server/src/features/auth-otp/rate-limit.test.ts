import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { RATE_LIMITS } from "../../rate-limit/rules.ts";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
import { emailsTo } from "../../testing/outbox.ts";

const CALLBACK = "http://localhost:3000/handler/magic-link-callback";

let server: TestServer;
let project: TestProject;

beforeAll(async () => {
  server = await createTestServer({ trustProxy: { hops: 1 } });
});
afterAll(() => server.close());
beforeEach(async () => {
  // A project per test: rate-limit counters are per project, so tests do not share them. No fixed clock: a window
  // starts at its counter's first attempt, so each test's attempts share one window on any clock.
  project = await server.createProject("Rate limited");
  await project.configure({ "auth.otp.allowSignIn": true });
});

const sendCode = (email: string, ip: string) =>
  server.request("/api/v1/auth/otp/send-sign-in-code", {
    method: "POST",
    headers: project.headers("client", { "x-forwarded-for": ip }),
    body: { email, callback_url: CALLBACK },
  });

function expectTooMany(response: { status: number; headers: Headers; text: string }) {
  expect(response.status).toBe(429);
  expect(Number(response.headers.get("retry-after"))).toBeGreaterThan(0);
  expect(response.text).toMatch(/Too many attempts/);
}

describe("email sign-in rate limits", () => {
  it("limit codes per recipient, whatever the IP", async () => {
    const email = "limited@example.com";
    for (let i = 0; i < RATE_LIMITS.emailPerRecipient.limit; i++) {
      expect((await sendCode(email, `10.0.0.${i}`)).status).toBe(200);
    }
    expectTooMany(await sendCode(email.toUpperCase(), "10.0.1.1"));
    expect(await emailsTo(server, project.id, email)).toHaveLength(RATE_LIMITS.emailPerRecipient.limit);
    expect((await sendCode("someone-else@example.com", "10.0.1.1")).status).toBe(200);
  });

  it("limit codes per IP, whatever the recipient", async () => {
    for (let i = 0; i < RATE_LIMITS.emailPerIp.limit; i++) {
      expect((await sendCode(`spray-${i}@example.com`, "10.9.9.9")).status).toBe(200);
    }
    expectTooMany(await sendCode("spray-last@example.com", "10.9.9.9"));
    expect((await sendCode("spray-last@example.com", "10.9.9.10")).status).toBe(200);
  });

  it("limit code checks per IP", async () => {
    const check = (ip: string) =>
      server.request("/api/v1/auth/otp/sign-in", {
        method: "POST",
        headers: project.headers("client", { "x-forwarded-for": ip }),
        body: { code: "0".repeat(45) },
      });
    for (let i = 0; i < RATE_LIMITS.codeCheckPerIp.limit; i++) {
      expect((await check("10.8.8.8")).status).toBe(404);
    }
    expectTooMany(await check("10.8.8.8"));
    expect((await check("10.8.8.9")).status).toBe(404);
  });
});
