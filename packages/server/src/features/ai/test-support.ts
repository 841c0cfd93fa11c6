/**
 * A local OpenAI-compatible server for the AI helper's tests: a real HTTP server speaking `POST /v1/chat/completions`
 * (JSON, or server-sent event chunks ending in `data: [DONE]` with `stream: true`), answering each request with the
 * next scripted reply (text and/or tool calls) and recording every request it got.
 */
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

export type ScriptedReply =
  | { text: string; toolCalls?: undefined }
  | { text?: string; toolCalls: { name: string; arguments: Record<string, unknown> }[] }
  | { status: number; error: string };

export type RecordedRequest = {
  path: string;
  authorization: string | undefined;
  body: {
    model: string;
    stream?: boolean;
    messages: { role: string; content: unknown; tool_calls?: unknown[]; tool_call_id?: string }[];
    tools?: { type: string; function: { name: string; description?: string; parameters: unknown } }[];
  };
};

export type FakeOpenAi = {
  /** The base URL to configure (`GATEHOUSE_AI_BASE_URL`), ending in `/v1`. */
  baseUrl: string;
  requests: RecordedRequest[];
  /** Queues replies, answered in order. */
  script: (...replies: ScriptedReply[]) => void;
  /** Forgets recorded requests and unanswered replies. */
  reset: () => void;
  /** Replies still waiting for a request. */
  pending: () => number;
  close: () => Promise<void>;
};

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

export async function startFakeOpenAi(): Promise<FakeOpenAi> {
  const requests: RecordedRequest[] = [];
  let replies: ScriptedReply[] = [];
  let callCounter = 0;

  const server = createServer(async (request, response) => {
    const text = await readBody(request);
    if (request.method !== "POST" || request.url !== "/v1/chat/completions") {
      response.writeHead(404, { "content-type": "application/json" });
      response.end(JSON.stringify({ error: { message: `No route ${request.method} ${request.url}` } }));
      return;
    }
    const body = JSON.parse(text) as RecordedRequest["body"];
    requests.push({ path: request.url, authorization: request.headers.authorization, body });
    const reply = replies.shift();
    if (!reply) {
      response.writeHead(500, { "content-type": "application/json" });
      response.end(JSON.stringify({ error: { message: "The fake model has no scripted reply left." } }));
      return;
    }
    if ("status" in reply) {
      response.writeHead(reply.status, { "content-type": "application/json" });
      response.end(JSON.stringify({ error: { message: reply.error, type: "scripted_error" } }));
      return;
    }
    const id = `chatcmpl-${requests.length}`;
    const created = Math.floor(Date.now() / 1000);
    const toolCalls = (reply.toolCalls ?? []).map((call) => ({
      id: `call_${++callCounter}`,
      type: "function" as const,
      function: { name: call.name, arguments: JSON.stringify(call.arguments) },
    }));
    const finishReason = toolCalls.length > 0 ? "tool_calls" : "stop";
    const usage = {
      prompt_tokens: 100 + requests.length,
      completion_tokens: 20,
      total_tokens: 120 + requests.length,
    };
    if (!body.stream) {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(
        JSON.stringify({
          id,
          object: "chat.completion",
          created,
          model: body.model,
          choices: [
            {
              index: 0,
              message: {
                role: "assistant",
                content: reply.text ?? null,
                ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
              },
              finish_reason: finishReason,
            },
          ],
          usage,
        }),
      );
      return;
    }
    response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    const send = (chunk: unknown) => response.write(`data: ${JSON.stringify(chunk)}\n\n`);
    const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
      id,
      object: "chat.completion.chunk",
      created,
      model: body.model,
      choices: [{ index: 0, delta, finish_reason: finish }],
    });
    send(chunk({ role: "assistant", content: "" }));
    // Text in a few pieces, as a real model streams it.
    for (const piece of (reply.text ?? "").match(/.{1,12}/gs) ?? []) send(chunk({ content: piece }));
    toolCalls.forEach((call, index) => {
      const half = Math.ceil(call.function.arguments.length / 2);
      send(
        chunk({
          tool_calls: [
            { index, id: call.id, type: "function", function: { name: call.function.name, arguments: "" } },
          ],
        }),
      );
      send(
        chunk({ tool_calls: [{ index, function: { arguments: call.function.arguments.slice(0, half) } }] }),
      );
      send(chunk({ tool_calls: [{ index, function: { arguments: call.function.arguments.slice(half) } }] }));
    });
    send(chunk({}, finishReason));
    send({ id, object: "chat.completion.chunk", created, model: body.model, choices: [], usage });
    response.write("data: [DONE]\n\n");
    response.end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    script: (...next) => {
      replies.push(...next);
    },
    reset: () => {
      requests.length = 0;
      replies = [];
    },
    pending: () => replies.length,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/** The text of a tool message the model got (the `<tool-data>` block), or undefined. */
export function toolMessageContent(request: RecordedRequest, toolCallIndex = 0): string | undefined {
  const tools = request.body.messages.filter((message) => message.role === "tool");
  const content = tools[toolCallIndex]?.content;
  return typeof content === "string" ? content : content === undefined ? undefined : JSON.stringify(content);
}

/** Reads an AI SDK UI message stream (SSE) into its chunks. */
// biome-ignore lint/suspicious/noExplicitAny: chunks of many shapes, read by tests.
export function parseUiMessageStream(text: string): Record<string, any>[] {
  return text
    .split("\n\n")
    .map((event) => event.replace(/^data: /, "").trim())
    .filter((data) => data !== "" && data !== "[DONE]")
    .map((data) => JSON.parse(data));
}
