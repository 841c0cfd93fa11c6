import type { GatehouseAdminApp } from "@gatehouse/js";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeOpenAi, startFakeOpenAi } from "../../packages/server/src/features/ai/test-support.ts";
import {
  adminAppOf,
  type DashboardEnv,
  ownerApi,
  ownerWithProject,
  screenshot,
  startDashboard,
} from "./test-support.ts";

/**
 * The AI helper's panel in the browser, against a server whose model is a local OpenAI-compatible stand-in
 * (scripted replies, streamed): a question answered from a tool call, a proposed config change applied only by the
 * owner's click (checked through the API before and after), the saved history, and the panel on a server without a
 * model. Screenshots light and dark.
 */
let fake: FakeOpenAi;
let env: DashboardEnv;
let page: Page;
let admin: () => Promise<GatehouseAdminApp>;
const owner = "ai-owner@example.com";

const panel = () => page.getByTestId("ai-panel");

async function inDarkMode(run: () => Promise<void>) {
  await page.getByTestId("theme-toggle").click();
  await page.waitForFunction(() => document.documentElement.dataset.theme === "dark");
  try {
    await run();
  } finally {
    await page.getByTestId("theme-toggle").click();
    await page.waitForFunction(() => document.documentElement.dataset.theme === "light");
  }
}

async function askInPanel(question: string) {
  await panel().getByTestId("ai-input").fill(question);
  await panel().getByTestId("ai-send").click();
}

beforeAll(async () => {
  fake = await startFakeOpenAi();
  env = await startDashboard({
    env: { ai: { baseUrl: fake.baseUrl, apiKey: "sk-e2e", model: "fake-model" } },
  });
  page = await env.newPage();
  const projectId = await ownerWithProject(env, page, owner, "Acme AI");
  const api = await ownerApi(env, owner);
  admin = async () => adminAppOf(await api.project(projectId));
  await (await admin()).createUser({ primaryEmail: "bob@acme.example", displayName: "Bob Example" });
});
afterAll(async () => {
  await env?.close();
  await fake?.close();
});

describe("the AI helper panel", () => {
  it("answers from a tool call, streaming, and shows the call", async () => {
    await page.getByTestId("ai-helper-button").click();
    await panel().waitFor();
    await screenshot(page, "ai-chat-empty");

    fake.script(
      { toolCalls: [{ name: "searchUsers", arguments: { query: "bob" } }] },
      { text: "Bob Example (bob@acme.example) signed up today and has no password yet." },
    );
    await askInPanel("Who is Bob?");
    await panel().getByText("Bob Example (bob@acme.example) signed up today").waitFor();
    const toolCall = panel().getByTestId("ai-tool-call").first();
    await expect(toolCall.textContent()).resolves.toContain("Searched users");
    // The tool's result reached the model, as data.
    expect(fake.requests).toHaveLength(2);
    expect(JSON.stringify(fake.requests[1]!.body.messages)).toContain("Bob Example");
    expect(fake.requests[1]!.body.stream).toBe(true);
    await toolCall.locator("summary").click();
    await screenshot(page, "ai-chat-tool-call");
  });

  it("shows a proposed change as a diff, applied only by the owner's click", async () => {
    fake.script(
      {
        toolCalls: [
          {
            name: "proposeConfigChange",
            arguments: {
              changes: { "teams.allowClientTeamCreation": true },
              summary: "Let users create teams",
            },
          },
        ],
      },
      { text: "I proposed letting users create teams. Review the diff and apply it if it looks right." },
    );
    await askInPanel("Let my users create their own teams");
    const proposal = panel().getByTestId("ai-proposal");
    await proposal.waitFor();
    await panel().getByText("Review the diff and apply it").waitFor();
    await expect(proposal.getByTestId("ai-diff").textContent()).resolves.toContain(
      "teams.allowClientTeamCreation",
    );
    await screenshot(page, "ai-chat-proposal");
    await inDarkMode(() => screenshot(page, "ai-chat-proposal-dark"));

    expect((await (await admin()).getProject()).config.clientTeamCreationEnabled).toBe(false);
    await proposal.getByTestId("ai-apply").click();
    // Exact: by default getByText matches any case and any part, and the "Not applied" badge is there already.
    await proposal.getByText("Applied", { exact: true }).waitFor();
    expect((await (await admin()).getProject()).config.clientTeamCreationEnabled).toBe(true);
  });

  it("keeps the conversation in the project's history", async () => {
    await panel().getByTestId("ai-new-chat").click();
    await panel().getByText("Ask about this project").waitFor();
    await panel().getByTestId("ai-history").click();
    const list = panel().getByTestId("ai-history-list");
    await list.getByText("Who is Bob?").click();
    await panel().getByText("Bob Example (bob@acme.example) signed up today").waitFor();
    // The proposal reopens with its current state.
    await panel().getByTestId("ai-proposal").getByText("Applied", { exact: true }).waitFor();
    await screenshot(page, "ai-chat-history");
    expect((await (await admin()).listAiConversations()).map((c) => c.title)).toEqual(["Who is Bob?"]);
  });

  it("says how to turn it on when the server has no model", async () => {
    // The same server with its model setting taken away for this test (the routes read it per request).
    const deps = env.gatehouse.deps;
    const saved = deps.env.ai;
    deps.env.ai = undefined;
    try {
      await page.reload();
      await page.getByTestId("ai-helper-button").click();
      const off = panel().getByTestId("ai-not-configured");
      await off.waitFor();
      await expect(off.textContent()).resolves.toContain("GATEHOUSE_AI_BASE_URL");
      await screenshot(page, "ai-chat-not-configured");
      await inDarkMode(() => screenshot(page, "ai-chat-not-configured-dark"));
    } finally {
      deps.env.ai = saved;
    }
  });
});
