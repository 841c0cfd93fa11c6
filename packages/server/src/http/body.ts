import { gunzipSync } from "node:zlib";
import { knownError } from "@gatehouse/shared";
import { StatusError } from "./status-error.ts";

/**
 * The most a compressed body may grow to. The same 2 MiB the API takes uncompressed (app.ts): a few kilobytes of
 * gzip can expand to gigabytes, so the limit applies while inflating, never after.
 */
export const MAX_INFLATED_BODY_BYTES = 2 * 1024 * 1024;

/** gzip's magic number, 1f 8b: how a body says it is gzip when its content type does not. */
function isGzip(bytes: Uint8Array): boolean {
  return bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
}

function inflate(bytes: Uint8Array): Uint8Array {
  try {
    return gunzipSync(bytes, { maxOutputLength: MAX_INFLATED_BODY_BYTES });
  } catch (error) {
    if ((error as { code?: string }).code === "ERR_BUFFER_TOO_LARGE") {
      throw new StatusError(413, "The request body is too large once decompressed (the limit is 2 MiB).");
    }
    throw knownError("BODY_PARSING_ERROR", undefined, "The request body is not valid gzip.");
  }
}

/**
 * A JSON body sent as bytes: the official SDK's analytics batches come as `application/octet-stream`, gzip by
 * their magic number, or plain JSON where the browser has no CompressionStream (PROTOCOL-EXTRA §8.14).
 */
export function jsonFromBytes(bytes: Uint8Array): unknown {
  const text = new TextDecoder().decode(isGzip(bytes) ? inflate(bytes) : bytes);
  try {
    return JSON.parse(text);
  } catch {
    throw knownError("BODY_PARSING_ERROR", undefined, "Invalid JSON in request body");
  }
}

/**
 * Parses a request body by its content type (PROTOCOL.md §1.2). Returns `undefined` for no body.
 * GET and HEAD bodies are ignored.
 */
export async function parseRequestBody(request: Request): Promise<unknown> {
  if (request.method === "GET" || request.method === "HEAD") return undefined;
  const contentType = (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  const received = await request.arrayBuffer().catch(() => {
    throw knownError("BODY_PARSING_ERROR", undefined, "The request body could not be read.");
  });
  if (received.byteLength === 0) return undefined;
  const encoding = (request.headers.get("content-encoding") ?? "").trim().toLowerCase();
  if (encoding !== "" && encoding !== "identity" && encoding !== "gzip") {
    throw new StatusError(415, `Unsupported content-encoding "${encoding}"; send gzip or none.`);
  }
  const raw = encoding === "gzip" ? inflate(new Uint8Array(received)) : received;
  switch (contentType) {
    case "application/json": {
      const text = new TextDecoder().decode(raw);
      try {
        return JSON.parse(text);
      } catch {
        throw knownError("BODY_PARSING_ERROR", undefined, "Invalid JSON in request body");
      }
    }
    case "application/x-www-form-urlencoded":
      return Object.fromEntries(new URLSearchParams(new TextDecoder().decode(raw)));
    case "text/plain":
      return new TextDecoder().decode(raw);
    case "application/octet-stream":
      return new Uint8Array(raw);
    case "":
      throw knownError(
        "BODY_PARSING_ERROR",
        undefined,
        "A request body was sent without a content-type header.",
      );
    default:
      throw knownError(
        "BODY_PARSING_ERROR",
        undefined,
        `Unsupported content-type "${contentType}"; send application/json.`,
      );
  }
}
