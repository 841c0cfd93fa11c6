import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestServer, type TestServer } from "../../testing/harness.ts";
import { latestEmailTo } from "../../testing/outbox.ts";
import { type BuiltInEmail, sendBuiltInEmail } from "./built-in.ts";

// The built-in emails as their recipients get them: queued as the project's built-in template, rendered by the
// outbox's render step (the harness runs it when the outbox is read), sealed and opened again.

let server: TestServer;
beforeAll(async () => {
  server = await createTestServer();
});
afterAll(() => server.close());

let sent = 0;
async function renderBuiltInEmail(project: { displayName: string }, email: BuiltInEmail) {
  const created = await server.createProject(project.displayName);
  const to = `reader${++sent}@example.com`;
  await sendBuiltInEmail(server.deps, { id: created.id, displayName: project.displayName }, { ...email, to });
  return latestEmailTo(server, created.id, to);
}

const link = "https://app.example.com/handler/email-verification?code=abc123&after=<x>";
const escapedLink = "https://app.example.com/handler/email-verification?code=abc123&amp;after=&lt;x&gt;";

const cases: { email: BuiltInEmail; subject: (project: string) => string; button: string }[] = [
  {
    email: { kind: "email_verification", variables: { link } },
    subject: (p) => `Verify your email at ${p}`,
    button: "Verify email",
  },
  {
    email: { kind: "password_reset", variables: { link } },
    subject: (p) => `Reset your password at ${p}`,
    button: "Reset password",
  },
  {
    email: { kind: "magic_link", variables: { link, otp: "a1b2c3" } },
    subject: (p) => `Sign in to ${p}: Your code is A1B2C3`,
    button: "Sign in",
  },
  {
    email: { kind: "team_invitation", variables: { link, teamDisplayName: "Core Team" } },
    subject: () => "You have been invited to join Core Team",
    button: "Accept invitation",
  },
  {
    email: { kind: "sign_in_invitation", variables: { link } },
    subject: (p) => `You have been invited to sign in to ${p}`,
    button: "Sign in",
  },
];

describe("built-in emails", () => {
  for (const { email, subject, button } of cases) {
    it(`${email.kind}: exact subject, project name, button and link in HTML and text`, async () => {
      const rendered = await renderBuiltInEmail({ displayName: "Acme" }, email);
      expect(rendered.subject).toBe(subject("Acme"));
      expect(rendered.html).toMatch(/^<!DOCTYPE html/);
      expect(rendered.html).toContain("Acme");
      expect(rendered.html).toContain(`href="${escapedLink}"`);
      // The link is also there as visible text, for mail clients that drop buttons.
      expect(rendered.html).toContain(`Or paste this link into your browser: ${escapedLink}</p>`);
      expect(rendered.html).toContain(`>${button}</span>`);
      expect(rendered.text).toContain("Acme");
      expect(rendered.text).toContain(link);
      expect(rendered.text).not.toContain("<p");
    });

    it(`${email.kind}: escapes a hostile project name`, async () => {
      const name = `<script>alert("x")</script> & "Co"`;
      const rendered = await renderBuiltInEmail({ displayName: name }, email);
      expect(rendered.subject).toBe(subject(name));
      expect(rendered.html).not.toContain("<script>");
      expect(rendered.html).toContain(
        "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &quot;Co&quot;",
      );
      // Plain text is not HTML: the name appears as typed.
      expect(rendered.text).toContain(name);
    });
  }

  it("shows the magic-link code large and in capitals", async () => {
    const rendered = await renderBuiltInEmail(
      { displayName: "Acme" },
      { kind: "magic_link", variables: { link, otp: "x9y8z7" } },
    );
    expect(rendered.html).toMatch(/<p style="[^"]*font-size:28px[^"]*">X9Y8Z7<\/p>/);
    expect(rendered.html).not.toContain("x9y8z7");
    expect(rendered.text).toContain("X9Y8Z7");
  });

  it("escapes a hostile team name", async () => {
    const rendered = await renderBuiltInEmail(
      { displayName: "Acme" },
      { kind: "team_invitation", variables: { link, teamDisplayName: "<img src=x onerror=alert(1)>" } },
    );
    expect(rendered.subject).toBe("You have been invited to join <img src=x onerror=alert(1)>");
    expect(rendered.html).not.toContain("<img");
    expect(rendered.html).toContain("&lt;img src=x onerror=alert(1)&gt;");
  });

  it("keeps the subject on one line whatever the project name holds", async () => {
    const rendered = await renderBuiltInEmail(
      { displayName: "Acme\r\nBcc: victim@example.com" },
      { kind: "password_reset", variables: { link } },
    );
    expect(rendered.subject).toBe("Reset your password at Acme Bcc: victim@example.com");
  });

  it("never renders a javascript: link as a working link", async () => {
    const rendered = await renderBuiltInEmail(
      { displayName: "Acme" },
      { kind: "email_verification", variables: { link: "javascript:alert(document.cookie)" } },
    );
    expect(rendered.html).not.toContain('href="javascript:alert');
  });
});
