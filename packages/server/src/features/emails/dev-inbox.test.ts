/**
 * The owners' development inbox (dev-inbox.ts): with no email server, an owner signing up to the dashboard finds
 * the verification email in the server log and in `GET /internal/dev-inbox`, and finishes with its link.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../observability/logger.ts";
import { createTestServer, type TestServer } from "../../testing/harness.ts";
import { expectKnownError, uniqueEmail } from "../../testing/known-errors.ts";
import { closedPort } from "../../testing/smtp-server.ts";
import { detachBootWorker } from "./test-support.ts";
import { startEmailWorker } from "./worker.ts";

let server: TestServer;
/** What the worker logged, one JSON line each, through a logger of the process's own kind. */
const logged: string[] = [];

beforeAll(async () => {
  server = await createTestServer();
  await detachBootWorker(server);
});
afterAll(() => server.close());

/** One pass of a worker whose logger writes into `logged`. */
async function deliver() {
  const logger = createLogger(
    { logFormat: "json", logLevel: "info" },
    { write: (line: string) => void logged.push(line) },
  );
  const worker = startEmailWorker(
    { ...server.deps, observability: { ...server.deps.observability, logger } },
    { intervalMs: 60_000 },
  );
  try {
    await worker.drain();
  } finally {
    await worker.stop();
  }
}

async function signUpOwner(email: string) {
  const signUp = await server.request("/api/v1/auth/password/sign-up", {
    method: "POST",
    headers: server.internal.headers("client"),
    body: {
      email,
      password: "a long enough password",
      verification_callback_url: "http://localhost:8102/handler/email-verification",
    },
  });
  expect(signUp.status, signUp.text).toBe(200);
  return signUp.body.access_token as string;
}

const inboxOf = (accessToken: string) =>
  server.request("/api/v1/internal/dev-inbox", {
    headers: { ...server.internal.headers("client"), "x-stack-access-token": accessToken },
  });

describe("the owner's own mail with no email server", () => {
  it("is logged with its link and listed for the owner, whose link then verifies the address", async () => {
    const email = uniqueEmail("dev-inbox-owner");
    const accessToken = await signUpOwner(email);
    const other = await signUpOwner(uniqueEmail("dev-inbox-other"));
    await deliver();

    const line = logged.map((text) => JSON.parse(text).msg as string).find((msg) => msg.includes(email));
    expect(line).toMatch(/^Dashboard email .*"Verify your email.*" to .*; open http:\/\/localhost:8102\//);
    const loggedLink = /open (\S+)/.exec(line!)![1]!;

    const inbox = await inboxOf(accessToken);
    expect(inbox.status, inbox.text).toBe(200);
    expect(inbox.body.is_available).toBe(true);
    expect(inbox.body.items).toHaveLength(1);
    const [mail] = inbox.body.items;
    expect(mail).toMatchObject({ to: [email], kind: "email_verification" });
    expect(mail.subject).toMatch(/^Verify your email/);
    expect(mail.text).toContain(loggedLink);

    // The other owner's mail is theirs alone.
    const otherInbox = await inboxOf(other);
    expect(otherInbox.body.items.map((item: { to: string[] }) => item.to)).not.toContainEqual([email]);

    const code = new URL(loggedLink).searchParams.get("code");
    const verify = await server.request("/api/v1/contact-channels/verify", {
      method: "POST",
      headers: server.internal.headers("client"),
      body: { code },
    });
    expect(verify.status, verify.text).toBe(200);
    const me = await server.request("/api/v1/users/me", {
      headers: { ...server.internal.headers("client"), "x-stack-access-token": accessToken },
    });
    expect(me.body.primary_email_verified).toBe(true);
  });

  it("needs a signed-in owner of the dashboard's project", async () => {
    expectKnownError(
      await server.request("/api/v1/internal/dev-inbox", { headers: server.internal.headers("client") }),
      401,
      "USER_AUTHENTICATION_REQUIRED",
    );
    const project = await server.createProject("Not the dashboard");
    const elsewhere = await server.request("/api/v1/internal/dev-inbox", {
      headers: project.headers("client"),
    });
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.text).toContain("internal project only");
  });

  it("is empty and says so once the mail goes to a real email server", async () => {
    const accessToken = await signUpOwner(uniqueEmail("dev-inbox-smtp"));
    await server.internal.configure({
      "emails.server": { isShared: false, host: "127.0.0.1", port: await closedPort() },
    });
    try {
      const inbox = await inboxOf(accessToken);
      expect(inbox.status, inbox.text).toBe(200);
      expect(inbox.body).toEqual({ is_available: false, items: [] });
    } finally {
      await server.internal.configure({ "emails.server": { isShared: true } });
    }
  });
});
