import { expect } from "vitest";

/** What `TestServer.request` answers, as far as the assertions below read it. */
type Answer = { status: number; headers: Headers; body?: any; text?: string };

/**
 * Asserts a known error from the catalogue (PROTOCOL.md §1.5): status, code in the body and the
 * `x-stack-known-error` header. `details`: the details it must carry; `null`: it carries none; left out: not read.
 */
export function expectKnownError(
  response: Answer,
  status: number,
  code: string,
  details?: Record<string, unknown> | null,
): void {
  expect({ status: response.status, code: response.body?.code }, response.text).toEqual({ status, code });
  expect(response.headers.get("x-stack-known-error")).toBe(code);
  expect(response.headers.get("content-type")).toContain("application/json");
  expect(typeof response.body.error).toBe("string");
  if (details === null) expect(response.body).not.toHaveProperty("details");
  else if (details !== undefined) expect(response.body.details).toEqual(details);
}

let emailCounter = 0;
/**
 * An address no other test uses, in this file or in another worker's (tests that share a PostgreSQL server run at
 * once, and outboxes are read per address).
 */
export function uniqueEmail(label = "user"): string {
  emailCounter += 1;
  return `${label}-${process.pid}-${emailCounter}-${Date.now().toString(36)}@example.com`;
}

/** Asserts a plain-text error (PROTOCOL.md §2.2, `StatusError`): status, exact text and the text content type. */
export function expectPlainError(response: Answer, status: number, text: string): void {
  expect({ status: response.status, text: response.text }).toEqual({ status, text });
  expect(response.headers.get("content-type")).toContain("text/plain");
  expect(response.headers.get("x-stack-known-error")).toBeNull();
}
