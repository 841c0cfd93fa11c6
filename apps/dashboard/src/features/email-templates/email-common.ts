import { isKnownError } from "@gatehouse/shared";
import { errorMessage } from "../../ui/hooks.ts";

/** The built-in templates and themes (PROTOCOL-EXTRA §1.1): fixed ids, so they can be reset to what ships. */
export const BUILT_IN_TEMPLATE_IDS: ReadonlySet<string> = new Set([
  "e7d009ce-8d47-4528-b245-5bf119f2ffa3",
  "a70fb3a4-56c1-4e42-af25-49d25603abd0",
  "822687fe-8d0a-4467-a0d1-416b6e639478",
  "e84de395-2076-4831-9c19-8e9a96a868e4",
  "066dd73c-36da-4fd0-b6d6-ebf87683f8bc",
  "70372aee-0441-4d80-974c-2e858e40123a",
  "f64b1afe-27ec-4a28-a277-7178f3261f9a",
]);
export const DEFAULT_LIGHT_THEME_ID = "1df07ae6-abf3-4a40-83a5-a1a2cbe336ac";
export const DEFAULT_DARK_THEME_ID = "a0172b5d-cff0-463b-83bb-85124697373a";
export const BUILT_IN_THEME_IDS: ReadonlySet<string> = new Set([
  DEFAULT_LIGHT_THEME_ID,
  DEFAULT_DARK_THEME_ID,
  "c7e2d94f-8a1b-4e6d-b3f5-9d0a2e7c1b8f",
]);
/** What a theme is previewed around: the email verification template. */
export const THEME_PREVIEW_TEMPLATE_ID = "e7d009ce-8d47-4528-b245-5bf119f2ffa3";

export type EmailKind = "templates" | "themes";

/** A render failure, in words: where it is (line and column when the renderer gave them) and what went wrong. */
export type RenderProblem = { line: number | null; summary: string; detail: string };

/**
 * Reads the renderer's message ("Compile error: template.tsx:2:12: Expected …" or a runtime error naming the
 * owner's line) into a line number, a first sentence and the rest (the code frame).
 */
export function renderProblemOf(error: unknown): RenderProblem | null {
  if (!isKnownError(error, "EMAIL_RENDERING_ERROR")) return null;
  const raw = String((error as { details?: { error?: unknown } }).details?.error ?? "").trim();
  const located = /(?:template|theme)\.tsx:(\d+)(?::(\d+))?:?\s*/.exec(raw);
  const line = located ? Number(located[1]) : null;
  const [first = "", ...rest] = raw.split("\n");
  const message = first
    .replace(/^Compile error:\s*/, "")
    .replace(/(?:template|theme)\.tsx:\d+(?::\d+)?:?\s*/, "")
    .trim();
  const where = located ? `Line ${located[1]}${located[2] ? `, column ${located[2]}` : ""}: ` : "";
  const kind = /^Compile error/.test(first) ? "It does not compile. " : "";
  return {
    line,
    summary: `${kind}${where}${message || "the renderer gave no reason."}`,
    detail: rest.join("\n"),
  };
}

/** Errors of the email template pages, in words an owner can act on. */
export function describeEmailError(error: unknown, noun = "template"): string {
  const problem = renderProblemOf(error);
  if (problem) return `The ${noun} does not render. ${problem.summary}`;
  if (isKnownError(error, "REQUIRES_CUSTOM_EMAIL_SERVER")) {
    return "Templates can only be changed while the project sends with its own email server (see the Email page).";
  }
  if (error instanceof Error && error.name === "HttpStatusError") {
    const status = (error as { status?: number }).status;
    if (status === 404) return `This ${noun} no longer exists.`;
    if (status === 400 && noun === "theme") {
      return "The project's selected theme cannot be deleted; select another theme first.";
    }
  }
  if (error instanceof Error && error.name === "ConnectionError") {
    return "The server could not be reached. Check your connection and try again.";
  }
  return errorMessage(error);
}
