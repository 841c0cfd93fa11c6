/**
 * The built-in themes and templates, run in process instead of in the sandbox.
 *
 * Why: a sandbox render costs ~450 ms of a core, nearly all of it loading React and React Email into a fresh
 * QuickJS interpreter, while the render itself is ~5 ms. Every sign-up, code and reset email uses a built-in
 * template unless the owner edited it, so in the sandbox they would queue behind each other at about two per second
 * on a 2-core machine. Sources byte-identical to the ones this server ships are our code, not the owner's, so they
 * need no sandbox: they run in a Node `vm` context that is loaded once per compiled script and reused.
 *
 * The context gets the same globals as the sandbox (sandbox-prelude.mjs), so a built-in renders exactly as it
 * would there; the email-rendering tests compare the two. Anything an owner changed, by even one character, goes
 * to the sandbox.
 */
import { createContext, runInContext } from "node:vm";
import {
  BUILT_IN_TEMPLATES,
  HTML_EMAIL_TEMPLATE_SOURCE,
  NEW_DRAFT_SOURCE,
  NEW_TEMPLATE_SOURCE,
  PLACEHOLDER_TEMPLATE_SOURCE,
} from "./built-in-templates.ts";
import { BUILT_IN_THEMES, NO_THEME_SOURCE, PLACEHOLDER_THEME_SOURCE } from "./built-in-themes.ts";
import type { SandboxOutcome } from "./sandbox.ts";
import { PRELUDE } from "./sandbox-prelude.mjs";

const TRUSTED_SOURCES: ReadonlySet<string> = new Set([
  ...BUILT_IN_TEMPLATES.map((template) => template.tsxSource),
  ...BUILT_IN_THEMES.map((theme) => theme.tsxSource),
  NEW_TEMPLATE_SOURCE,
  NEW_DRAFT_SOURCE,
  PLACEHOLDER_TEMPLATE_SOURCE,
  HTML_EMAIL_TEMPLATE_SOURCE,
  NO_THEME_SOURCE,
  PLACEHOLDER_THEME_SOURCE,
]);

/** Whether every source of an email is one this server ships unchanged. */
export function isTrustedEmail(sources: { template: string; theme: string }): boolean {
  return TRUSTED_SOURCES.has(sources.template) && TRUSTED_SOURCES.has(sources.theme);
}

type Render = (inputJson: string) => unknown;

/** A few scripts at most: the built-in templates, each with the themes it is used with. */
const MAX_CONTEXTS = 32;
const contexts = new Map<string, Render>();

function loadedRender(code: string): Render {
  const cached = contexts.get(code);
  if (cached) return cached;
  const context = createContext({});
  runInContext(PRELUDE, context, { filename: "prelude.js" });
  runInContext(code, context, { filename: "email.js" });
  const render = (context as { __gatehouseRender?: Render }).__gatehouseRender;
  if (typeof render !== "function") throw new Error("The compiled email defines no render function.");
  if (contexts.size >= MAX_CONTEXTS) contexts.delete(contexts.keys().next().value!);
  contexts.set(code, render);
  return render;
}

/** Renders trusted compiled code for each input, with the sandbox's outcome shape. */
export function runTrusted(code: string, inputs: string[]): SandboxOutcome[] {
  const render = loadedRender(code);
  return inputs.map((input): SandboxOutcome => {
    try {
      const value = render(input);
      if (typeof value !== "string")
        return { ok: false, kind: "error", message: "The render returned no result." };
      return { ok: true, value };
    } catch (error) {
      const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      return { ok: false, kind: "error", message };
    }
  });
}
