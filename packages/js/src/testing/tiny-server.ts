import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { freePort } from "../../../server/src/testing/ports.ts";

export type RecordedRequest = {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
};

/**
 * A throwaway HTTP server whose answers a test scripts by hand (429s, broken known errors, ...): `handler` gets
 * the request and the number of requests before it.
 */
export async function tinyServer(
  handler: (request: RecordedRequest, response: ServerResponse, index: number) => void,
): Promise<{ url: string; requests: RecordedRequest[]; close(): Promise<void> }> {
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const recorded = {
        method: req.method ?? "GET",
        url: req.url ?? "/",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      };
      requests.push(recorded);
      handler(recorded, res, requests.length - 1);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A URL nobody listens on: a port that was free a moment ago, so connecting is refused. */
export async function refusedUrl(): Promise<string> {
  return `http://127.0.0.1:${await freePort()}`;
}

export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers });
  response.end(JSON.stringify(body));
}
