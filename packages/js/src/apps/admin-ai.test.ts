import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeOpenAi, startFakeOpenAi } from "../../../server/src/features/ai/test-support.ts";
import { appsFor } from "../testing/apps.ts";
import { type RunningGatehouse, startGatehouse } from "../testing/gatehouse-server.ts";

let fake: FakeOpenAi;
let gh: RunningGatehouse;
let apps: ReturnType<typeof appsFor>;

beforeAll(async () => {
  fake = await startFakeOpenAi();
  gh = await startGatehouse({ ai: { baseUrl: fake.baseUrl, apiKey: undefined, model: "fake-model" } });
  apps = appsFor(gh, await gh.createProject("AI helper"));
});
afterAll(async () => {
  await gh?.close();
  await fake?.close();
});

describe("AdminApp's AI helper", () => {
  it("streams an answer with a tool call, and applies a proposal only when asked", async () => {
    const admin = apps.admin();
    expect(await admin.getAiStatus()).toMatchObject({
      configured: true,
      model: "fake-model",
      howToConfigure: null,
    });
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
      { text: "I proposed letting users create teams." },
    );
    const chunks = [];
    for await (const chunk of await admin.streamAi({
      messages: [{ role: "user", content: "Let users make teams" }],
    })) {
      chunks.push(chunk);
    }
    const text = chunks
      .filter((c) => c.type === "text-delta")
      .map((c) => c.delta)
      .join("");
    expect(text).toBe("I proposed letting users create teams.");
    const output = chunks.find((c) => c.type === "tool-output-available") as { output: any } | undefined;
    const proposalId = output!.output.proposal.id as string;

    const [proposal] = await admin.listAiProposals();
    expect(proposal).toMatchObject({
      id: proposalId,
      status: "pending",
      diff: [{ path: "teams.allowClientTeamCreation", before: false, after: true }],
    });
    expect((await admin.getProject()).config.clientTeamCreationEnabled).toBe(false);
    expect((await admin.applyAiProposal(proposalId)).status).toBe("applied");
    // A fresh app: the first one caches the project it read.
    expect((await apps.admin().getProject()).config.clientTeamCreationEnabled).toBe(true);
  });

  it("asks for a whole answer, and keeps threads and conversations", async () => {
    const admin = apps.admin();
    fake.script({ text: "Hello!" });
    expect(await admin.askAi({ messages: [{ role: "user", content: "Hi" }], tools: [] })).toEqual({
      content: [{ type: "text", text: "Hello!" }],
      finalText: "Hello!",
    });

    await admin.appendAiThreadMessage("email/1", { role: "user", text: "a" });
    await admin.appendAiThreadMessage("email/1", { role: "assistant", text: "b" });
    expect(await admin.getAiThread("email/1")).toEqual([
      { role: "user", text: "a" },
      { role: "assistant", text: "b" },
    ]);

    const { id } = await admin.createAiConversation({
      title: "First",
      messages: [{ role: "user", content: "Hi" }],
    });
    await admin.saveAiConversationMessages(id, [
      { role: "user", content: "Hi" },
      { role: "assistant", content: "Hello!" },
    ]);
    await admin.renameAiConversation(id, "Greeting");
    expect((await admin.listAiConversations()).map((c) => c.title)).toEqual(["Greeting"]);
    expect((await admin.getAiConversation(id)).messages.map((m) => m.content)).toEqual(["Hi", "Hello!"]);
    await admin.deleteAiConversation(id);
    expect(await admin.listAiConversations()).toEqual([]);
  });
});
