/**
 * One HTTP attempt of one message: POST the body with its signed headers, wait at most the timeout for an answer,
 * keep the first characters of it. Redirects are not followed (a 3xx is a failed attempt), so a receiver cannot
 * bounce the request to an address the SSRF guard refused. In production every connection goes through the guard.
 */
import http from "node:http";
import https from "node:https";
import { assertLiteralHostAllowed, BlockedAddressError, guardedLookup } from "../../net/address-guard.ts";
import { signedHeaders } from "./signing.ts";

/** Success is any 2xx within this time (PROTOCOL-EXTRA §3.3). */
export const DELIVERY_TIMEOUT_MS = 15_000;
/** How much of the receiver's answer (or of the error) an attempt keeps. */
export const RESPONSE_EXCERPT_CHARS = 500;

export type AttemptOutcome = {
  ok: boolean;
  statusCode: number | null;
  /** The start of the answer, or why there was none. */
  response: string;
  durationMs: number;
  /** The SSRF guard refused the address. */
  blocked: boolean;
};

export type OutgoingMessage = {
  url: string;
  secret: string;
  /** The message id (`webhook-id`): the event's id, stable across attempts. */
  id: string;
  body: string;
};

export async function sendMessage(
  message: OutgoingMessage,
  options: { guard: boolean; timeoutMs?: number },
): Promise<AttemptOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  try {
    const url = new URL(message.url);
    if (options.guard) assertLiteralHostAllowed(url);
    const { statusCode, excerpt } = await post(url, message, options.guard, timeoutMs);
    const ok = statusCode >= 200 && statusCode < 300;
    return { ok, statusCode, response: excerpt, durationMs: elapsed(), blocked: false };
  } catch (error) {
    const blocked = error instanceof BlockedAddressError;
    const response = blocked
      ? `Blocked: ${(error as Error).message}; webhook endpoints must be publicly reachable.`
      : describeError(error, timeoutMs);
    return {
      ok: false,
      statusCode: null,
      response: response.slice(0, RESPONSE_EXCERPT_CHARS),
      durationMs: elapsed(),
      blocked,
    };
  }
}

function post(
  url: URL,
  message: OutgoingMessage,
  guard: boolean,
  timeoutMs: number,
): Promise<{ statusCode: number; excerpt: string }> {
  const transport = url.protocol === "https:" ? https : http;
  const body = Buffer.from(message.body, "utf8");
  return new Promise((resolve, reject) => {
    const request = transport.request(url, {
      method: "POST",
      headers: { ...signedHeaders(message.secret, message.id, message.body), "content-length": body.length },
      agent: false,
      ...(guard ? { lookup: guardedLookup as never } : {}),
    });
    const timer = setTimeout(() => {
      request.destroy(Object.assign(new Error("timeout"), { code: "GATEHOUSE_TIMEOUT" }));
    }, timeoutMs);
    const fail = (error: unknown) => {
      clearTimeout(timer);
      reject(error);
    };
    request.on("error", fail);
    request.on("response", (response) => {
      const statusCode = response.statusCode ?? 0;
      let excerpt = "";
      const done = () => {
        clearTimeout(timer);
        response.destroy();
        resolve({ statusCode, excerpt: excerpt.slice(0, RESPONSE_EXCERPT_CHARS) });
      };
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => {
        excerpt += chunk;
        if (excerpt.length >= RESPONSE_EXCERPT_CHARS) done();
      });
      response.on("end", done);
      // The answer's status is known: a body cut short (or too slow) still leaves what came.
      response.on("error", done);
      response.on("aborted", done);
    });
    request.end(body);
  });
}

function describeError(error: unknown, timeoutMs: number): string {
  const code = (error as { code?: string } | null)?.code;
  if (code === "GATEHOUSE_TIMEOUT") return `No answer within ${Math.round(timeoutMs / 1000)} s.`;
  const text = error instanceof Error ? error.message : String(error);
  if (code === "ECONNREFUSED") return `Connection refused (${text}).`;
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return `The host could not be resolved (${text}).`;
  return `Request failed: ${text}`;
}
