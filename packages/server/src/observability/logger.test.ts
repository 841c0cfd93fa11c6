import { afterEach, expect, it } from "vitest";
import { createLogger, routeConsoleToLogger } from "./logger.ts";

const original = { log: console.log, info: console.info, warn: console.warn, error: console.error };
afterEach(() => Object.assign(console, original));

it("sends console output through the JSON logger, with errors serialized and their parameters cut", () => {
  const lines: string[] = [];
  const logger = createLogger(
    { logFormat: "json", logLevel: "info" },
    { write: (line: string) => lines.push(line) },
  );
  routeConsoleToLogger(logger);
  const failure = new Error('Failed query: insert into "x" values ($1)\nparams: hunter2-secret');
  console.error("Email delivery failed:", failure);
  console.warn("[payments] %s is slow", "Stripe");
  console.log("plain");
  Object.assign(console, original);

  const entries = lines.map((line) => JSON.parse(line) as Record<string, any>);
  expect(entries.map((entry) => [entry.level, entry.msg])).toEqual([
    ["error", "Email delivery failed:"],
    ["warn", "[payments] Stripe is slow"],
    ["info", "plain"],
  ]);
  expect(entries[0]!.err.message).toContain("Failed query");
  expect(lines.join("\n")).not.toContain("hunter2-secret");
});
