import { knownError } from "@gatehouse/shared";

/**
 * Parses a request body by its content type (PROTOCOL.md §1.2). Returns `undefined` for no body.
 * GET and HEAD bodies are ignored.
 */
export async function parseRequestBody(request: Request): Promise<unknown> {
  if (request.method === "GET" || request.method === "HEAD") return undefined;
  const contentType = (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  const raw = await request.arrayBuffer().catch(() => {
    throw knownError("BODY_PARSING_ERROR", undefined, "The request body could not be read.");
  });
  if (raw.byteLength === 0) return undefined;
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
