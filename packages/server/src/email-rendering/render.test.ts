import { describe, expect, it } from "vitest";
import { defaultRenderedConfig, type RenderedConfig } from "../config/index.ts";
import { BUILT_IN_TEMPLATE_IDS, BUILT_IN_TEMPLATES } from "./built-in-templates.ts";
import { BUILT_IN_THEMES, NO_THEME_SOURCE } from "./built-in-themes.ts";
import { EmailRenderError, renderEmail, renderTemplate } from "./render.ts";
import type { SandboxTenant } from "./sandbox-queue.ts";

const TENANT: SandboxTenant = { projectId: "render-test", lane: "preview" };

const WELCOME_TEMPLATE = `import { Text } from "@react-email/components";
import { NotificationCategory, Subject, type Props } from "@stackframe/emails";
import { type } from "arktype";

export const variablesSchema = type({ name: "string", count: "number" });

export function EmailTemplate({ user, project, variables }: Props<typeof variablesSchema.infer>) {
  return (
    <>
      <Subject value={\`Welcome \${variables.name} to \${project.displayName}\`} />
      <NotificationCategory value="Marketing" />
      <Text>Hello {user.displayName}, you have {variables.count} messages; leaked: {String((variables as any).secret)}</Text>
    </>
  );
}
EmailTemplate.PreviewVariables = { name: "Preview Name", count: 7 };
`;

const FRAME_THEME = `import { Body, Html } from "@react-email/components";
import type { ThemeProps } from "@gatehouse/emails";

export function EmailTheme({ children, unsubscribeLink }: ThemeProps) {
  return (
    <Html>
      <Body>
        <div id="frame">{children}</div>
        {unsubscribeLink ? <a href={unsubscribeLink}>unsubscribe</a> : null}
      </Body>
    </Html>
  );
}
`;

async function renderError(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(EmailRenderError);
  return (error as Error).message;
}

describe("renderEmail", () => {
  it("renders a template with variables, subject and category inside a theme", async () => {
    const rendered = await renderEmail({
      tenant: TENANT,
      templateSource: WELCOME_TEMPLATE,
      themeSource: FRAME_THEME,
      variables: { name: "Ada", count: 3, secret: "undeclared" },
      user: { displayName: "Ada L." },
      project: { displayName: "Acme" },
      unsubscribeLink: "https://acme.example/unsubscribe",
    });
    expect(rendered.subject).toBe("Welcome Ada to Acme");
    expect(rendered.notificationCategory).toBe("Marketing");
    expect(rendered.html).toMatch(/^<!DOCTYPE html/);
    expect(rendered.html).toContain('<div id="frame">');
    expect(rendered.html).toContain("Hello Ada L., you have 3 messages");
    expect(rendered.html).toContain('href="https://acme.example/unsubscribe"');
    // arktype deletes undeclared keys, so only declared variables reach the template.
    expect(rendered.html).toContain("leaked: undefined");
    expect(rendered.text).toContain("Hello Ada L., you have 3 messages");
  });

  it("uses the preview names and PreviewVariables in preview mode", async () => {
    const rendered = await renderEmail({
      tenant: TENANT,
      templateSource: WELCOME_TEMPLATE,
      themeSource: null,
      preview: true,
    });
    expect(rendered.subject).toBe("Welcome Preview Name to My Project");
    expect(rendered.html).toContain("Hello John Doe");
    expect(rendered.html).toContain("7 messages");
  });

  it("reports variables that do not match the schema", async () => {
    const message = await renderError(
      renderEmail({
        tenant: TENANT,
        templateSource: WELCOME_TEMPLATE,
        themeSource: null,
        variables: { name: "Ada", count: "three" },
      }),
    );
    expect(message).toContain("The variables do not match variablesSchema");
    expect(message).toContain("count must be a number");
  });

  it("reports a compile error with its file and line", async () => {
    const source = `import { Text } from "@react-email/components";\n\nexport function EmailTemplate() {\n  return <Text>unclosed;\n}\n`;
    const message = await renderError(
      renderEmail({ tenant: TENANT, templateSource: source, themeSource: null }),
    );
    expect(message).toMatch(/^Compile error: template\.tsx:5:\d+: /);
    expect(message).toContain("Unexpected end of file");
  });

  it("reports an error thrown while rendering", async () => {
    const source = `export function EmailTemplate({ variables }) {\n  const items = variables.items;\n  return items.map((item) => item);\n}`;
    const message = await renderError(
      renderEmail({ tenant: TENANT, templateSource: source, themeSource: null }),
    );
    // The line is the owner's, found through the bundle's source map.
    expect(message).toBe(
      "Render error: TypeError: cannot read property 'map' of undefined (at template.tsx:3:10)",
    );
    const theme = `export function EmailTheme() {\n\n  throw new Error("theme exploded");\n}`;
    const themeMessage = await renderError(
      renderEmail({
        tenant: TENANT,
        templateSource: source.replace("items.map", "[].map"),
        themeSource: theme,
      }),
    );
    expect(themeMessage).toMatch(/^Render error: Error: theme exploded \(at theme\.tsx:3:\d+\)$/);
  });

  it("reports a theme that exports no EmailTheme", async () => {
    const message = await renderError(
      renderEmail({
        tenant: TENANT,
        templateSource: WELCOME_TEMPLATE,
        themeSource: "export const x = 1;",
        preview: true,
      }),
    );
    expect(message).toContain("The theme must export a function component named EmailTheme");
  });

  it("requires the Subject and NotificationCategory markers only when asked", async () => {
    const source = `import { Text } from "@react-email/components";\nexport function EmailTemplate() { return <Text>no markers</Text>; }`;
    const rendered = await renderEmail({ tenant: TENANT, templateSource: source, themeSource: null });
    expect(rendered.subject).toBeUndefined();
    expect(rendered.notificationCategory).toBeUndefined();
    const message = await renderError(
      renderEmail({ tenant: TENANT, templateSource: source, themeSource: null, requireMarkers: true }),
    );
    expect(message).toContain("must render a <Subject");
  });

  it("refuses two Subject markers and an unknown category", async () => {
    const twoSubjects = `import { Subject } from "@stackframe/emails";\nexport function EmailTemplate() { return <><Subject value="a" /><Subject value="b" /></>; }`;
    expect(
      await renderError(renderEmail({ tenant: TENANT, templateSource: twoSubjects, themeSource: null })),
    ).toContain("renders 2 <Subject> elements");
    const badCategory = `import { NotificationCategory } from "@stackframe/emails";\nexport function EmailTemplate() { return <NotificationCategory value="Spam" />; }`;
    expect(
      await renderError(renderEmail({ tenant: TENANT, templateSource: badCategory, themeSource: null })),
    ).toContain('"Transactional" or "Marketing"');
  });

  it("renders a theme that suspends while it loads something (as React Email's Tailwind does)", async () => {
    // A cheap stand-in for <Tailwind>, whose compiler loads asynchronously and takes ~20 s of a core in the
    // interpreter: too much CPU to spend beside the browser tests. The mechanism under test is the same: the first
    // render suspends on a promise, the sandbox runs the pending jobs and renders again.
    const theme = `import { use } from "react";
import { Body, Html } from "@react-email/components";
const loaded = Promise.resolve("loaded-later");
export function EmailTheme({ children }) {
  const word = use(loaded);
  return <Html><Body><p>{word}</p>{children}</Body></Html>;
}`;
    const template = `import { Text } from "@react-email/components";
export function EmailTemplate() { return <Text>body</Text>; }`;
    const rendered = await renderEmail({ tenant: TENANT, templateSource: template, themeSource: theme });
    expect(rendered.html).toContain("<p>loaded-later</p>");
    expect(rendered.html).toContain("body</p>");
  });
});

describe("the built-in themes and templates", () => {
  it("every built-in template renders with its markers, and every built-in theme wraps one", async () => {
    const light = BUILT_IN_THEMES[0]?.tsxSource as string;
    const pairs = [
      ...BUILT_IN_TEMPLATES.map((template) => [template.tsxSource, light] as const),
      ...[...BUILT_IN_THEMES.slice(1).map((theme) => theme.tsxSource), NO_THEME_SOURCE].map(
        (theme) => [BUILT_IN_TEMPLATES[0]?.tsxSource as string, theme] as const,
      ),
    ];
    for (const [templateSource, themeSource] of pairs) {
      const rendered = await renderEmail({
        tenant: TENANT,
        templateSource,
        themeSource,
        preview: true,
        requireMarkers: true,
      });
      expect(rendered.notificationCategory).toBe("Transactional");
      expect(rendered.subject).toBeTruthy();
      // Each template's preview link: a handler page, or the payment emails' receipt and invoice.
      expect(rendered.html).toMatch(/https:\/\/example\.com\/(handler\/|receipt|invoice)/);
    }
  }, 120_000);

  it("renderTemplate renders a project's template with the protocol's variables", async () => {
    const config: RenderedConfig = defaultRenderedConfig();
    const rendered = await renderTemplate(
      config,
      BUILT_IN_TEMPLATE_IDS.magic_link,
      { magicLink: "https://app.example/handler/magic-link-callback?code=abc", otp: "AB12CD" },
      { tenant: TENANT, project: { displayName: "Acme" }, user: { displayName: null } },
    );
    expect(rendered.subject).toBe("Sign in to Acme: Your code is AB12CD");
    expect(rendered.html).toContain("https://app.example/handler/magic-link-callback?code=abc");
    expect(rendered.text).toContain("AB12CD");
    await expect(
      renderTemplate(
        config,
        BUILT_IN_TEMPLATE_IDS.team_invitation,
        { teamDisplayName: "Ops" },
        {
          tenant: TENANT,
          project: { displayName: "Acme" },
        },
      ),
    ).rejects.toThrow("teamInvitationLink must be a string");
    await expect(
      renderTemplate(
        config,
        "00000000-0000-4000-8000-000000000000",
        {},
        { tenant: TENANT, project: { displayName: "Acme" } },
      ),
    ).rejects.toThrow("there is no email template with id");
  });
});
