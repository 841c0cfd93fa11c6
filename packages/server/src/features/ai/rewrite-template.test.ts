/**
 * `POST /internal/rewrite-template-source` (PROTOCOL-EXTRA §1.12) against the local OpenAI-compatible server
 * (test-support.ts), as the reference's dashboard sends it.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
import { expectKnownError } from "../../testing/known-errors.ts";
import { sourceFromAnswer } from "./rewrite-template.ts";
import { type FakeOpenAi, startFakeOpenAi } from "./test-support.ts";

let fake: FakeOpenAi;
let server: TestServer;
let project: TestProject;
beforeAll(async () => {
  fake = await startFakeOpenAi();
  server = await createTestServer({ ai: { baseUrl: fake.baseUrl, apiKey: undefined, model: "fake-model" } });
  project = await server.createProject("Rewriter");
});
afterAll(async () => {
  await server.close();
  await fake.close();
});
beforeEach(() => fake.reset());

const TEMPLATE = `export function EmailTemplate({ variables }) { return <p>Hi {variables.name}</p>; }`;
const DRAFT = "export function EmailTemplate() { return <p>Hi there</p>; }";

const rewrite = (body: unknown, target: TestProject = project) =>
  server.request("/api/v1/internal/rewrite-template-source", {
    method: "POST",
    headers: target.headers("admin"),
    body,
  });

describe("POST /internal/rewrite-template-source", () => {
  it("asks the model once with the template and answers the rewritten source", async () => {
    fake.script({ text: `\`\`\`tsx\n${DRAFT}\n\`\`\`` });
    const answer = await rewrite({ template_tsx_source: TEMPLATE });
    expect([answer.status, answer.body]).toEqual([200, { tsx_source: DRAFT }]);
    expect(fake.requests).toHaveLength(1);
    const [system, user] = fake.requests[0]!.body.messages;
    expect(system?.role).toBe("system");
    expect(String(system?.content)).toContain("standalone email draft");
    expect(user).toMatchObject({ role: "user", content: TEMPLATE });
    expect(fake.requests[0]!.body.tools).toBeUndefined();
  });

  it("answers TEMPLATE_SOURCE_REWRITE_ERROR when the model fails or answers nothing", async () => {
    fake.script({ text: "   " });
    expectKnownError(await rewrite({ template_tsx_source: TEMPLATE }), 400, "TEMPLATE_SOURCE_REWRITE_ERROR", {
      error: "The AI model answered with no source.",
    });
    // The AI SDK tries a failed call twice.
    fake.script({ status: 500, error: "model overloaded" }, { status: 500, error: "model overloaded" });
    const failed = await rewrite({ template_tsx_source: TEMPLATE });
    expectKnownError(failed, 400, "TEMPLATE_SOURCE_REWRITE_ERROR");
    expect(failed.body.details.error).toContain("model overloaded");
  });

  it("refuses a bad body and non-admins, and says how to configure a model where there is none", async () => {
    expectKnownError(await rewrite({}), 400, "SCHEMA_ERROR");
    expectKnownError(await rewrite({ template_tsx_source: "" }), 400, "SCHEMA_ERROR");
    const asServer = await server.request("/api/v1/internal/rewrite-template-source", {
      method: "POST",
      headers: project.headers("server"),
      body: { template_tsx_source: TEMPLATE },
    });
    expectKnownError(asServer, 401, "INSUFFICIENT_ACCESS_TYPE");
    expect(fake.requests).toHaveLength(0);

    const bare = await createTestServer();
    try {
      const other = await bare.createProject("No model");
      const answer = await bare.request("/api/v1/internal/rewrite-template-source", {
        method: "POST",
        headers: other.headers("admin"),
        body: { template_tsx_source: TEMPLATE },
      });
      expect(answer.status).toBe(400);
      expect(answer.text).toContain("GATEHOUSE_AI_BASE_URL");
    } finally {
      await bare.close();
    }
  });

  it("takes the source out of a fenced answer only when the whole answer is the fence", () => {
    expect(sourceFromAnswer("```tsx\nconst a = 1;\n```\n")).toBe("const a = 1;");
    expect(sourceFromAnswer("```\nconst a = 1;\n```")).toBe("const a = 1;");
    expect(sourceFromAnswer("  const a = 1;  ")).toBe("const a = 1;");
    expect(sourceFromAnswer("Here:\n```tsx\nx\n```")).toBe("Here:\n```tsx\nx\n```");
  });
});
