/**
 * The email part of the config defaults (PROTOCOL-EXTRA §1.1), applied by schema.ts before validation:
 * - the built-in themes and templates are always present; a level's entry for one of their ids edits it, and a
 *   `null` entry (or none) brings the built-in back, which is how owners reset a built-in;
 * - while the project uses the shared email server, the templates are exactly the built-in set, whatever the
 *   overrides say (the shared server only sends the server's own emails);
 * - `selectedThemeId` naming a theme that does not exist falls back to the default theme.
 */
import { BUILT_IN_TEMPLATES } from "../email-rendering/built-in-templates.ts";
import { BUILT_IN_THEMES, DEFAULT_SELECTED_THEME_ID } from "../email-rendering/built-in-themes.ts";
import { isPlainObject } from "./json.ts";

type Entries = Record<string, Record<string, unknown>>;

const builtInThemes: Entries = Object.fromEntries(
  BUILT_IN_THEMES.map((theme) => [theme.id, { displayName: theme.displayName, tsxSource: theme.tsxSource }]),
);
const builtInTemplates: Entries = Object.fromEntries(
  BUILT_IN_TEMPLATES.map((template) => [
    template.id,
    { displayName: template.displayName, tsxSource: template.tsxSource },
  ]),
);

/** `own` (null entries already meaning "absent") laid over the built-ins; entries merge key by key. */
function overBuiltIns(builtIns: Entries, own: unknown): unknown {
  if (own !== undefined && !isPlainObject(own)) return own; // let the schema report the wrong type
  const merged: Record<string, unknown> = { ...builtIns };
  for (const [id, entry] of Object.entries(own ?? {})) {
    if (entry === null || entry === undefined) continue;
    const builtIn = Object.hasOwn(builtIns, id) ? builtIns[id] : undefined;
    merged[id] = builtIn && isPlainObject(entry) ? { ...builtIn, ...entry } : entry;
  }
  return merged;
}

/** Applies the rules above to the merged `emails` object (null entries already dropped at this level). */
export function withEmailDefaults(emails: unknown): unknown {
  if (emails !== undefined && !isPlainObject(emails)) return emails;
  const out: Record<string, unknown> = { ...(emails ?? {}) };
  const server = isPlainObject(out.server) ? out.server : {};
  const usesSharedServer = server.isShared !== false;
  out.themes = overBuiltIns(builtInThemes, out.themes);
  out.templates = usesSharedServer ? { ...builtInTemplates } : overBuiltIns(builtInTemplates, out.templates);
  const themes = out.themes;
  const selected = out.selectedThemeId;
  if (
    selected === undefined ||
    selected === null ||
    (typeof selected === "string" && isPlainObject(themes) && !isPlainObject(themes[selected]))
  ) {
    out.selectedThemeId = DEFAULT_SELECTED_THEME_ID;
  }
  return out;
}
