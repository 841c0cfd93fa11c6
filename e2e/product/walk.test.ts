import { randomBytes } from "node:crypto";
import {
  type AdminOwnedProject,
  GatehouseAdminApp,
  GatehouseClientApp,
  GatehouseServerApp,
} from "@gatehouse/js";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../../packages/server/src/testing/chromium.ts";
import { imageDataUrl, makePng } from "../../packages/server/src/testing/images.ts";
import { startTestSmtpServer, type TestSmtpServer } from "../../packages/server/src/testing/smtp-server.ts";
import { type StripeStandIn, startStripeStandIn } from "../../packages/server/src/testing/stripe-stand-in.ts";
import { type Caller, callApi, expectOk } from "./api.ts";
import { createOwnDatabase, type OwnDatabase } from "./postgres-database.ts";
import {
  DEPLOY_START,
  dashboardUser,
  type ProductProcess,
  QUICK_START,
  startProduct,
} from "./product-process.ts";

/**
 * The product as a user runs it: `npm start` in a child process (the README's command, built the way it ships),
 * a real SMTP server receiving its mail, Chromium for the screens, and @gatehouse/js for what an app does.
 *
 * The suite runs twice in CI: on the embedded database this walks development mode, the newcomer's
 * `npm install && npm start`; with DATABASE_URL (the PostgreSQL pass) it follows the README's Deploy section
 * instead: the built server started with NODE_ENV=production, a fixed GATEHOUSE_SECRET, GATEHOUSE_BASE_URL and a
 * PostgreSQL database of its own.
 * Any 5xx the process answers during the walk fails it.
 */
const postgresUrl = process.env.DATABASE_URL;
const mode = postgresUrl ? "production on PostgreSQL" : "development on the embedded database";
const PASSWORD = "correct horse battery staple";

let smtp: TestSmtpServer;
let stripe: StripeStandIn;
let product: ProductProcess;
let browser: Browser;
let productionDatabase: OwnDatabase | null = null;

beforeAll(async () => {
  smtp = await startTestSmtpServer();
  // Stripe's stand-in: the process talks to it through the stripe package, and it sends signed events back.
  stripe = await startStripeStandIn({
    deliver: async (body, signature) =>
      (
        await fetch(`${product.baseUrl}/api/v1/integrations/stripe/webhooks`, {
          method: "POST",
          headers: { "content-type": "application/json", "stripe-signature": signature },
          body,
        })
      ).status,
  });
  const env: Record<string, string> = {
    GATEHOUSE_SMTP_URL: smtp.url,
    GATEHOUSE_EMAIL_FROM: "auth@walk.test",
    STACK_STRIPE_SECRET_KEY: stripe.secretKey,
    STACK_STRIPE_WEBHOOK_SECRET: stripe.webhookSecret,
    GATEHOUSE_STRIPE_API_URL: stripe.url,
  };
  if (postgresUrl) {
    const database = await createOwnDatabase(postgresUrl);
    productionDatabase = database;
    Object.assign(env, {
      NODE_ENV: "production",
      ...database.serverEnv(),
      GATEHOUSE_SECRET: randomBytes(32).toString("base64url"),
    });
  }
  // Vitest's global setup ran the build (`npm run build` of the Deploy section) before this file started.
  product = await startProduct({
    command: postgresUrl ? DEPLOY_START : QUICK_START,
    env: (baseUrl) => (postgresUrl ? { ...env, GATEHOUSE_BASE_URL: baseUrl } : env),
  });
  browser = await launchChromium();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await product?.stop();
  await smtp?.close();
  await stripe?.close();
  await productionDatabase?.drop();
});

/** The first link in a message that carries a `code=` parameter, and that code. */
function linkIn(text: string): { url: string; code: string } {
  const match = /https?:\/\/\S+?[?&]code=([0-9a-z]+)/i.exec(text);
  if (!match) throw new Error(`No link with a code in:\n${text}`);
  return { url: match[0], code: match[1]! };
}

function unwrap<T>(result: { status: "ok"; data?: T } | { status: "error"; error: Error }): void {
  if (result.status === "error") throw result.error;
}

function clientOf(projectId: string, publishableClientKey: string) {
  return new GatehouseClientApp({
    projectId,
    publishableClientKey,
    baseUrl: product.baseUrl,
    tokenStore: "memory",
    noAutomaticPrefetch: true,
  });
}

async function newPage(): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  return page;
}

describe(`the product as users run it (${mode})`, () => {
  const ownerEmail = `owner-${randomBytes(4).toString("hex")}@walk.test`;
  let app: { projectId: string; publishableClientKey: string; secretServerKey: string };
  let ownedProject: AdminOwnedProject;

  it("prints where to go and keeps the internal project's keys", () => {
    // Production logs JSON lines: the banner is one line, saying where the keys are kept (never the keys).
    expect(product.log()).toContain(
      postgresUrl ? `Gatehouse is running at ${product.baseUrl}` : `Open ${product.baseUrl}/ and sign up`,
    );
    if (postgresUrl) expect(product.log()).toContain("internal-keys.json (readable by this user only)");
    expect(product.internalKeys().publishableClientKey).toMatch(/^pck_/);
  });

  it("takes a new owner from the dashboard's sign-up to the first project's keys, in Chromium", async () => {
    const page = await newPage();
    await page.goto(`${product.baseUrl}/`);
    // A first visitor lands on sign-up.
    await page.waitForURL(/\/handler\/sign-up/);
    await page.getByLabel("E-mail", { exact: true }).fill(ownerEmail);
    await page.getByRole("textbox", { name: "Password", exact: true }).fill(PASSWORD);
    await page.getByLabel("Repeat password").fill(PASSWORD);
    await page.getByRole("button", { name: "Create account" }).click();
    await page.getByText("Let's create your first project").waitFor();

    await page.locator('input[name="displayName"]').fill("Walk app");
    await page.getByRole("button", { name: "Create project" }).click();
    await page.getByTestId("keys-once").waitFor();
    const text = async (id: string) => (await page.getByTestId(id).locator("code").textContent()) ?? "";
    app = {
      projectId: await text("copy-project-id"),
      publishableClientKey: await text("copy-publishable-client-key"),
      secretServerKey: await text("copy-secret-server-key"),
    };
    expect(app.publishableClientKey).toMatch(/^pck_/);
    expect(app.secretServerKey).toMatch(/^ssk_/);
    await page.context().close();

    // The keys the page showed work against the API, and the owner sees the project.
    const server = new GatehouseServerApp({ ...app, baseUrl: product.baseUrl, tokenStore: "memory" });
    expect((await server.listUsers()).length).toBe(0);
    const owner = clientOf("internal", product.internalKeys().publishableClientKey);
    unwrap(await owner.signInWithCredential({ email: ownerEmail, password: PASSWORD, noRedirect: true }));
    const user = await owner.getUser({ or: "throw" });
    const projects = (await user!.listOwnedProjects!()) as AdminOwnedProject[];
    ownedProject = projects.find((project) => project.id === app.projectId)!;
    expect(ownedProject.displayName).toBe("Walk app");
  });

  it("verifies the owner's e-mail with the link from the verification e-mail, opened in Chromium", async () => {
    const message = await smtp.waitForMessageTo(ownerEmail);
    const { url } = linkIn(message.text);
    expect(url.startsWith(`${product.baseUrl}/handler/`)).toBe(true);
    const page = await newPage();
    await page.goto(url);
    await page.getByRole("button", { name: "Verify e-mail" }).click();
    await page.getByText("Thank you, your e-mail address is verified.").waitFor();
    await page.context().close();
    expect((await dashboardUser(product, ownerEmail))?.primaryEmailVerified).toBe(true);
  });

  it("signs an app's user up with a verification e-mail and verifies it", async () => {
    const email = `ada-${randomBytes(4).toString("hex")}@walk.test`;
    const client = clientOf(app.projectId, app.publishableClientKey);
    unwrap(
      await client.signUpWithCredential({
        email,
        password: PASSWORD,
        verificationCallbackUrl: `${product.baseUrl}/handler/email-verification`,
        noRedirect: true,
      }),
    );
    const { code } = linkIn((await smtp.waitForMessageTo(email)).text);
    unwrap(await client.verifyEmail(code));
    const server = new GatehouseServerApp({ ...app, baseUrl: product.baseUrl, tokenStore: "memory" });
    const [user] = await server.listUsers({ query: email });
    expect(user?.primaryEmailVerified).toBe(true);
  });

  it("signs a user in with the code from a sign-in e-mail", async () => {
    await ownedProject.update({ config: { magicLinkEnabled: true } });
    const email = `grace-${randomBytes(4).toString("hex")}@walk.test`;
    const client = clientOf(app.projectId, app.publishableClientKey);
    unwrap(
      await client.sendMagicLinkEmail(email, {
        callbackUrl: `${product.baseUrl}/handler/magic-link-callback`,
      }),
    );
    const { code } = linkIn((await smtp.waitForMessageTo(email)).text);
    unwrap(await client.signInWithMagicLink(code, { noRedirect: true }));
    expect((await client.getUser({ or: "throw" }))!.primaryEmail).toBe(email);
  });

  it("resets a forgotten password from the reset e-mail", async () => {
    const email = `linus-${randomBytes(4).toString("hex")}@walk.test`;
    const client = clientOf(app.projectId, app.publishableClientKey);
    unwrap(await client.signUpWithCredential({ email, password: PASSWORD, noRedirect: true }));
    const forgetful = clientOf(app.projectId, app.publishableClientKey);
    unwrap(
      await forgetful.sendForgotPasswordEmail(email, {
        callbackUrl: `${product.baseUrl}/handler/password-reset`,
      }),
    );
    const { code } = linkIn((await smtp.waitForMessageTo(email)).text);
    const newPassword = "a brand new passphrase 42";
    unwrap(await forgetful.resetPassword({ code, password: newPassword }));
    const old = await forgetful.signInWithCredential({ email, password: PASSWORD, noRedirect: true });
    expect(old.status).toBe("error");
    unwrap(await forgetful.signInWithCredential({ email, password: newPassword, noRedirect: true }));
  });

  it("invites a user to a team by e-mail, and the invitation is accepted", async () => {
    const inviterEmail = `ines-${randomBytes(4).toString("hex")}@walk.test`;
    const inviteeEmail = `ivan-${randomBytes(4).toString("hex")}@walk.test`;
    const inviter = clientOf(app.projectId, app.publishableClientKey);
    unwrap(await inviter.signUpWithCredential({ email: inviterEmail, password: PASSWORD, noRedirect: true }));
    const inviterUser = (await inviter.getUser({ or: "throw" }))!;
    const server = new GatehouseServerApp({ ...app, baseUrl: product.baseUrl, tokenStore: "memory" });
    const created = await server.createTeam({ displayName: "Walkers", creatorUserId: inviterUser.id });

    const team = await inviterUser.getTeam(created.id);
    await team!.inviteUser({
      email: inviteeEmail,
      callbackUrl: `${product.baseUrl}/handler/team-invitation`,
    });
    const { code } = linkIn((await smtp.waitForMessageTo(inviteeEmail)).text);

    const invitee = clientOf(app.projectId, app.publishableClientKey);
    unwrap(await invitee.signUpWithCredential({ email: inviteeEmail, password: PASSWORD, noRedirect: true }));
    unwrap(await invitee.acceptTeamInvitation(code));
    const teams = await (await invitee.getUser({ or: "throw" }))!.listTeams();
    expect(teams.map((t) => t.id)).toContain(created.id);
  });

  it("sends the owner's edited verification template and an email to users, through the outbox and SMTP", async () => {
    // Template edits and send-email need the project's own email server: the same SMTP server, set as owners do.
    await ownedProject.update({
      config: {
        emailConfig: {
          type: "standard",
          host: "127.0.0.1",
          port: smtp.port,
          username: "",
          password: "",
          senderEmail: "noreply@walk.test",
          senderName: "Walk app",
        },
      },
    });
    const admin = ownedProject.app as unknown as GatehouseAdminApp;
    const verification = (await admin.listEmailTemplates()).find(
      (t) => t.displayName === "Email Verification",
    )!;
    const edited = verification.tsxSource.replace("Confirm your email address", "Walk app says hello");
    expect(edited).not.toBe(verification.tsxSource);
    await admin.updateEmailTemplate(verification.id, edited);

    const email = `grace-${randomBytes(4).toString("hex")}@walk.test`;
    const client = clientOf(app.projectId, app.publishableClientKey);
    unwrap(
      await client.signUpWithCredential({
        email,
        password: PASSWORD,
        verificationCallbackUrl: `${product.baseUrl}/handler/email-verification`,
        noRedirect: true,
      }),
    );
    const verificationEmail = await smtp.waitForMessageTo(email);
    expect(verificationEmail.html).toContain("Walk app says hello");
    expect(verificationEmail.from).toEqual({ name: "Walk app", address: "noreply@walk.test" });

    const server: Caller = {
      projectId: app.projectId,
      accessType: "server",
      secretServerKey: app.secretServerKey,
    };
    const sent = await expectOk(
      callApi(product.baseUrl, server, "/emails/send-email", {
        body: { all_users: true, subject: "News from the walk", html: "<p>All is well.</p>" },
      }),
      "send an email to every user",
    );
    expect((sent.results as unknown[]).length).toBeGreaterThan(1);
    await expect
      .poll(() =>
        smtp.messages.some((m) => m.envelope.to.includes(email) && m.subject === "News from the walk"),
      )
      .toBe(true);
    await expect
      .poll(async () => {
        const outbox = await expectOk(
          callApi(product.baseUrl, server, "/emails/outbox?status=sent"),
          "list the sent emails",
        );
        return (outbox.items as { subject?: string }[]).filter(
          (item) => item.subject === "News from the walk",
        ).length;
      })
      .toBeGreaterThan(1);
  });

  it("signs in with a shared OAuth provider: the development stand-in, never in production", async () => {
    const internal = new GatehouseAdminApp({
      projectId: "internal",
      baseUrl: product.baseUrl,
      tokenStore: "memory",
      ...product.internalKeys(),
    });
    const project = await internal.getProject();
    await project.update({ config: { oauthProviders: [{ id: "github", type: "shared" }] } });
    const page = await newPage();
    await page.goto(`${product.baseUrl}/handler/sign-in`);
    await page.getByRole("button", { name: "Continue with GitHub" }).click();

    if (postgresUrl) {
      // Production has no stand-in: without operator credentials the provider cannot be used, and says so.
      await page.waitForURL((url) => !url.pathname.startsWith("/handler/sign-in"));
      expect(await page.locator("body").textContent()).toContain(
        "uses shared keys, but this server has none",
      );
    } else {
      const email = `octo-${randomBytes(4).toString("hex")}@walk.test`;
      await page.getByLabel("Email address").fill(email);
      await page.getByRole("button", { name: "Sign in" }).click();
      // Back in the dashboard, signed in: its first-run page greets a user with no project.
      await page.getByText("Let's create your first project").waitFor();
      const [user] = await internal.listUsers({ query: email });
      expect(user?.oauthProviders.map((provider) => provider.id)).toEqual(["github"]);
      // Its address is the typed one, marked: no real user's.
      expect(user?.primaryEmail).toBe(`${email}.dev-oauth.invalid`);
    }
    await page.context().close();
  });

  it("renders an email template in the sandbox, and stops hostile TSX with a 400 while still serving others", async () => {
    // The built server finds its sandbox worker and the email modules outside the source tree (issue 13).
    const admin: Caller = {
      projectId: "internal",
      accessType: "admin",
      superSecretAdminKey: product.internalKeys().superSecretAdminKey,
    };
    const { templates } = (await expectOk(
      callApi(product.baseUrl, admin, "/internal/email-templates"),
      "list the email templates",
    )) as { templates: { id: string; display_name: string }[] };
    const verification = templates.find((template) => template.display_name === "Email Verification");
    expect(verification, JSON.stringify(templates)).toBeDefined();
    const preview = await expectOk(
      callApi(product.baseUrl, admin, "/emails/render-email", { body: { template_id: verification!.id } }),
      "preview the verification email",
    );
    expect(preview.html).toContain("<html");
    expect(preview.subject).toContain("My Project");

    const hostile = callApi(product.baseUrl, admin, "/emails/render-email", {
      body: {
        template_tsx_source:
          "export function EmailTemplate() { while (true) {} }\nexport const variablesSchema = (v: unknown) => v;",
        theme_id: false,
      },
    });
    // While the endless render runs on its worker thread, the server answers everyone else.
    expect((await fetch(`${product.baseUrl}/health`)).status).toBe(200);
    const refused = await hostile;
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe("EMAIL_RENDERING_ERROR");
  });

  it("rejects a sign-up by the owner's rule, and stores a profile picture sent as a data URL", async () => {
    // Sign-up rules (issue 18): a CEL condition in the project's config, applied by the running server.
    await ownedProject.updateConfig({
      "auth.signUpRules.no_spam": {
        enabled: true,
        priority: 1,
        condition: 'emailDomain == "spam.walk.test"',
        action: { type: "reject" },
      },
    });
    const client = clientOf(app.projectId, app.publishableClientKey);
    const refused = await client
      .signUpWithCredential({ email: "bot@spam.walk.test", password: PASSWORD, noRedirect: true })
      .then(
        (result) => (result.status === "error" ? result.error : null),
        (error: unknown) => error,
      );
    expect((refused as { code?: string } | null)?.code).toBe("SIGN_UP_REJECTED");
    const server = new GatehouseServerApp({ ...app, baseUrl: product.baseUrl, tokenStore: "memory" });
    expect(await server.listUsers({ query: "bot@spam.walk.test" })).toHaveLength(0);

    // Images (issue 18): the data URL becomes a file the process serves back, byte for byte.
    const email = `pic-${randomBytes(4).toString("hex")}@walk.test`;
    unwrap(await client.signUpWithCredential({ email, password: PASSWORD, noRedirect: true }));
    const png = makePng();
    const [user] = await server.listUsers({ query: email });
    await user!.update({ profileImageUrl: imageDataUrl(png) });
    const stored = (await server.getUser(user!.id))!.profileImageUrl!;
    expect(stored.startsWith(`${product.baseUrl}/files/`), stored).toBe(true);
    const served = await fetch(stored);
    expect(served.headers.get("content-type")).toBe("image/png");
    expect(Buffer.from(await served.arrayBuffer()).equals(png)).toBe(true);

    // A body over the 2 MiB limit is refused with a 413, whether its length is declared or it comes in chunks,
    // and the user keeps the picture it had.
    const oversized = JSON.stringify({ profile_image_url: `data:image/png;base64,${"A".repeat(3 << 20)}` });
    const userUrl = `${product.baseUrl}/api/v1/users/${user!.id}`;
    const serverHeaders = {
      "x-stack-project-id": app.projectId,
      "x-stack-access-type": "server",
      "x-stack-secret-server-key": app.secretServerKey,
      "content-type": "application/json",
    };
    const declared = await fetch(userUrl, { method: "PATCH", headers: serverHeaders, body: oversized });
    expect(declared.status).toBe(413);
    expect(await declared.text()).toMatch(/too large/);
    const bytes = new TextEncoder().encode(oversized);
    const inChunks = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let offset = 0; offset < bytes.length; offset += 64 << 10) {
          controller.enqueue(bytes.subarray(offset, offset + (64 << 10)));
        }
        controller.close();
      },
    });
    const chunked = await fetch(userUrl, {
      method: "PATCH",
      headers: serverHeaders,
      body: inChunks,
      duplex: "half",
    } as RequestInit);
    expect(chunked.status).toBe(413);
    expect((await server.getUser(user!.id))!.profileImageUrl).toBe(stored);
  });

  it("sells a product in test mode: the purchase page grants the credits it includes, once", async () => {
    // Payments (issue 14): a catalogue in the owner's config, a purchase URL from the app's server, the purchase
    // page served by the process, and the item quantity read back through @gatehouse/js.
    await ownedProject.updateConfig({
      "payments.items.credits": { displayName: "Credits", customerType: "user" },
      "payments.products.starter-pack": {
        displayName: "Starter pack",
        prices: { once: { USD: "5" } },
        includedItems: { credits: { quantity: 100, expires: "never" } },
      },
    });
    const server = new GatehouseServerApp({ ...app, baseUrl: product.baseUrl, tokenStore: "memory" });
    const email = `buyer-${randomBytes(4).toString("hex")}@walk.test`;
    const buyer = await server.createUser({ primaryEmail: email, primaryEmailVerified: true });
    const url = await buyer.createCheckoutUrl({ productId: "starter-pack" });
    expect(url.startsWith(`${product.baseUrl}/purchase/`), url).toBe(true);

    const page = await newPage();
    await page.goto(url);
    await page.getByTestId("purchase-test-mode").waitFor();
    await page.getByTestId("purchase-button").click();
    await page.getByTestId("purchase-done").waitFor();
    await page.reload();
    await page.getByTestId("purchase-error").waitFor();
    await page.context().close();

    const credits = await buyer.getItem("credits");
    expect([credits.quantity, credits.nonNegativeQuantity]).toEqual([100, 100]);
    expect(await credits.tryDecreaseQuantity(101)).toBe(false);
    expect(await credits.tryDecreaseQuantity(40)).toBe(true);
    expect((await buyer.getItem("credits")).quantity).toBe(60);
  });

  it("takes a card payment through Stripe Checkout, granted by Stripe's signed webhook", async () => {
    const admin = ownedProject.app as unknown as GatehouseAdminApp;
    const { url: onboarding } = await admin.setupPayments();
    expect((await fetch(onboarding, { redirect: "manual" })).status).toBe(303);
    expect((await admin.getStripeAccountInfo())?.chargesEnabled).toBe(true);
    await ownedProject.updateConfig({ "payments.testMode": false });

    const server = new GatehouseServerApp({ ...app, baseUrl: product.baseUrl, tokenStore: "memory" });
    const buyer = await server.createUser({
      primaryEmail: `card-${randomBytes(4).toString("hex")}@walk.test`,
    });
    const url = await buyer.createCheckoutUrl({ productId: "starter-pack" });
    const page = await newPage();
    await page.goto(url);
    await page.getByRole("button", { name: "Pay with card" }).click();
    await page.waitForURL((target) => target.toString().startsWith(`${stripe.url}/checkout/`));
    await page.getByRole("button", { name: "Pay" }).click();
    await page.waitForURL(`${product.baseUrl}/purchase/done`);
    await page.getByTestId("purchase-paid").waitFor();
    await page.context().close();
    expect(stripe.events.map((each) => each.status)).toEqual([200]);
    expect((await buyer.getItem("credits")).quantity).toBe(100);
  });

  it("answered no request with a 5xx", () => {
    expect(product.serverErrors()).toEqual([]);
  });
});
