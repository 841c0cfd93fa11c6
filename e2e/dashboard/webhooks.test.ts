import { type GatehouseAdminApp, verifyWebhook, WebhookVerificationError } from "@gatehouse/js";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Receiver, startReceiver } from "../../packages/server/src/features/webhooks/test-support.ts";
import {
  adminAppOf,
  type DashboardEnv,
  ownerApi,
  ownerWithProject,
  screenshot,
  startDashboard,
} from "./test-support.ts";

/**
 * The webhook portal in the browser, against a real HTTP receiver: an owner adds an endpoint on the dashboard's
 * Webhooks page, copies the secret shown once, sends a test event that the receiver gets and verifies with the
 * SDK's verifyWebhook, and sees the delivery succeed with its attempt log; the standalone portal link opens in a
 * profile with no session and manages the same endpoint (resend); then rotate, edit and delete (with confirmation).
 */
let env: DashboardEnv;
let page: Page;
let receiver: Receiver;
let projectId: string;
let admin: () => Promise<GatehouseAdminApp>;
let secret: string;
const owner = "webhooks-owner@example.com";
const RECEIVER_ANSWER = "received by the test receiver";

const modal = () => page.getByRole("dialog");
const deliveryRows = (on: Page) =>
  on.getByTestId("webhook-deliveries-table").locator("tbody tr[data-status]");

async function shownSecret(on: Page): Promise<string> {
  return (await on.getByTestId("copy-signing-secret").locator("code").textContent()) ?? "";
}

async function inDarkMode(on: Page, run: () => Promise<void>) {
  await on.getByTestId("theme-toggle").click();
  await on.waitForFunction(() => document.documentElement.dataset.theme === "dark");
  try {
    await run();
  } finally {
    await on.getByTestId("theme-toggle").click();
    await on.waitForFunction(() => document.documentElement.dataset.theme === "light");
  }
}

beforeAll(async () => {
  env = await startDashboard();
  receiver = await startReceiver(() => ({ status: 200, body: RECEIVER_ANSWER }));
  page = await env.newPage();
  await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: env.baseUrl });
  projectId = await ownerWithProject(env, page, owner, "Webhooks project");
  const api = await ownerApi(env, owner);
  admin = async () => adminAppOf(await api.project(projectId));
});
afterAll(async () => {
  await receiver?.close();
  await env?.close();
});

describe("the Webhooks page", () => {
  it("adds an endpoint, shows its secret once, and delivers a signed test event the receiver verifies", async () => {
    await page.getByRole("link", { name: "Webhooks" }).click();
    await page.waitForURL(/\/projects\/[^/]+\/webhooks$/);
    await page.getByRole("heading", { name: "No endpoints yet" }).waitFor();

    await page.getByRole("button", { name: "Add endpoint" }).first().click();
    await modal().locator('input[name="endpointUrl"]').fill(receiver.url);
    await modal().locator('input[name="endpointDescription"]').fill("Test receiver");
    await modal().getByLabel("Only the events chosen below").check();
    // Nothing chosen yet: the form says so and does not submit.
    await modal().getByText("Choose at least one event type.").waitFor();
    expect(await modal().getByRole("button", { name: "Add endpoint" }).isDisabled()).toBe(true);
    await modal().locator('input[name="event-user.created"]').check();
    await modal().locator('input[name="event-team.created"]').check();
    await modal().getByRole("button", { name: "Add endpoint" }).click();

    // The secret, once, with a copy button that puts exactly it on the clipboard.
    await modal().getByRole("heading", { name: "Endpoint added: its signing secret" }).waitFor();
    secret = await shownSecret(page);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]{20,}$/);
    await modal().getByRole("button", { name: "Copy signing-secret" }).click();
    await modal().getByRole("button", { name: "Copied" }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    await modal().getByRole("button", { name: "I have copied it" }).click();
    await modal().waitFor({ state: "detached" });

    // Stored as entered, read back through the API.
    const [stored] = await (await admin()).webhookPortal.listEndpoints();
    expect(stored).toMatchObject({
      url: receiver.url,
      description: "Test receiver",
      eventTypes: ["user.created", "team.created"],
      enabled: true,
    });
    const row = page.getByTestId("webhook-endpoints-table").locator(`tr[data-endpoint-id="${stored!.id}"]`);
    expect(await row.textContent()).toContain("user.created, team.created");

    // A test event: the receiver gets it, signed with the copied secret.
    await page.getByTestId("webhook-deliveries").getByText("No deliveries yet").waitFor();
    await page.getByRole("button", { name: "Send test event" }).click();
    await expect.poll(() => receiver.messages.length).toBe(1);
    const message = receiver.messages[0]!;
    const event = await verifyWebhook<{ endpointUrl: string }>(secret, message.body, message.headers);
    expect(event.type).toBe("stack.test");
    expect(event.data.endpointUrl).toBe(receiver.url);
    const wrongSecret = `whsec_${btoa("another secret of thirty-two bytes")}`;
    await expect(verifyWebhook(wrongSecret, message.body, message.headers)).rejects.toBeInstanceOf(
      WebhookVerificationError,
    );

    // The deliveries list follows it to "Succeeded", and the attempt log has the receiver's answer.
    const delivery = deliveryRows(page).first();
    await page.getByTestId("webhook-deliveries-table").locator('tr[data-status="succeeded"]').waitFor();
    expect(await deliveryRows(page).count()).toBe(1);
    const cells = await delivery.locator("td").allTextContents();
    expect(cells.slice(0, 4)).toEqual(["stack.test", "Succeeded", "1", "200"]);
    await delivery.getByRole("button", { name: "Attempts" }).click();
    const log = page.getByTestId("webhook-attempt-log");
    expect(await log.locator("[data-attempt]").count()).toBe(1);
    expect(await log.textContent()).toMatch(/Answered HTTP 200 after \d+ ms/);
    expect(await log.getByTestId("attempt-response").textContent()).toBe(RECEIVER_ANSWER);
    expect(await log.textContent()).toContain(message.id);

    await screenshot(page, "webhooks");
    await inDarkMode(page, () => screenshot(page, "webhooks-dark"));
  });

  it("opens the standalone portal link in a profile with no session, with the same endpoint", async () => {
    const { token, url } = await (await admin()).getSvixToken();
    expect(url).toBe(`${env.baseUrl}/webhooks-portal#token=${encodeURIComponent(token)}`);
    const stranger = await env.newPage();
    expect(await stranger.context().cookies()).toEqual([]);
    await stranger.goto(url);
    await stranger.getByRole("heading", { name: "Webhooks" }).waitFor();
    // Still the portal, not the dashboard's sign-in.
    expect(new URL(stranger.url()).pathname).toBe("/webhooks-portal");
    expect(await stranger.getByText(projectId).count()).toBe(1);

    const table = stranger.getByTestId("webhook-endpoints-table");
    await table.getByText(receiver.url).waitFor();
    expect(await table.locator("tbody tr").count()).toBe(1);
    await deliveryRows(stranger).first().waitFor();
    expect(await deliveryRows(stranger).first().getAttribute("data-status")).toBe("succeeded");

    // Resend from the portal: the same message again, a second attempt.
    await deliveryRows(stranger).first().getByRole("button", { name: "Resend" }).click();
    await expect.poll(() => receiver.messages.length).toBe(2);
    expect(receiver.messages[1]!.id).toBe(receiver.messages[0]!.id);
    await stranger.getByTestId("webhook-deliveries-table").locator("td", { hasText: /^2$/ }).waitFor();
    await stranger.getByTestId("webhook-deliveries-table").locator('tr[data-status="succeeded"]').waitFor();
    await screenshot(stranger, "webhooks-portal-standalone");
    await inDarkMode(stranger, () => screenshot(stranger, "webhooks-portal-standalone-dark"));

    // A link whose token the server refuses says so in words.
    await stranger.goto(`${env.baseUrl}/webhooks-portal#token=${token.slice(0, -4)}AAAA`);
    await stranger
      .getByRole("alert")
      .getByText("The webhook portal token is invalid or has expired.")
      .first()
      .waitFor();
    await stranger.goto(`${env.baseUrl}/webhooks-portal`);
    await stranger.getByRole("heading", { name: "No portal link" }).waitFor();
    await stranger.context().close();
  });

  it("rotates the secret, edits the endpoint, and deletes it after a confirmation", async () => {
    const before = receiver.messages.length;
    await page.getByRole("button", { name: "Rotate secret" }).click();
    await modal().getByRole("button", { name: "Rotate secret" }).click();
    await modal().getByRole("heading", { name: "The new signing secret" }).waitFor();
    const rotated = await shownSecret(page);
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);
    await modal().getByRole("button", { name: "I have copied it" }).click();

    await page.getByRole("button", { name: "Send test event" }).click();
    await expect.poll(() => receiver.messages.length).toBe(before + 1);
    const message = receiver.messages[before]!;
    expect((await verifyWebhook(rotated, message.body, message.headers)).type).toBe("stack.test");
    await expect(verifyWebhook(secret, message.body, message.headers)).rejects.toBeInstanceOf(
      WebhookVerificationError,
    );

    await page.getByTestId("webhook-endpoint").getByRole("button", { name: "Edit" }).click();
    await modal().locator('input[name="endpointDescription"]').fill("Renamed receiver");
    await modal().getByLabel("All events, including ones added later").check();
    await modal().getByRole("button", { name: "Save endpoint" }).click();
    await modal().waitFor({ state: "detached" });
    await page.getByTestId("webhook-endpoints-table").getByText("Renamed receiver").waitFor();
    const [edited] = await (await admin()).webhookPortal.listEndpoints();
    expect(edited).toMatchObject({ description: "Renamed receiver", eventTypes: [], url: receiver.url });

    await page.getByTestId("webhook-endpoint").getByRole("button", { name: "Delete" }).click();
    await modal().getByRole("heading", { name: "Delete this endpoint?" }).waitFor();
    // Cancelling keeps it.
    await modal().getByRole("button", { name: "Cancel" }).click();
    expect(await (await admin()).webhookPortal.listEndpoints()).toHaveLength(1);
    await page.getByTestId("webhook-endpoint").getByRole("button", { name: "Delete" }).click();
    await modal().getByRole("button", { name: "Delete endpoint" }).click();
    await page.getByRole("heading", { name: "No endpoints yet" }).waitFor();
    expect(await (await admin()).webhookPortal.listEndpoints()).toEqual([]);
  });
});
