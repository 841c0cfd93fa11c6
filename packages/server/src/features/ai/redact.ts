/**
 * What the model may see of a config: secrets never (the config's secret paths, and any key whose name says secret,
 * password, key or token), and email TSX sources only as their length unless asked for one entry.
 */
import { isSecretConfigPath } from "../../config/index.ts";

export const SECRET_PLACEHOLDER = "(secret)";
const SECRET_NAME = /secret|password|private.?key|api.?key|token/i;

export function isSecretPath(path: readonly string[]): boolean {
  return isSecretConfigPath(path) || SECRET_NAME.test(path[path.length - 1] ?? "");
}

/** A deep copy with every secret replaced; with `summarizeSources`, every `tsxSource` by its length. */
export function redactConfig(
  value: unknown,
  options: { summarizeSources?: boolean } = {},
  path: string[] = [],
): unknown {
  if (Array.isArray(value)) return value.map((item, i) => redactConfig(item, options, [...path, String(i)]));
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(value)) {
      const childPath = [...path, key];
      if (typeof child === "string" && isSecretPath(childPath)) out[key] = SECRET_PLACEHOLDER;
      else if (options.summarizeSources && key === "tsxSource" && typeof child === "string")
        out[key] = `(TSX source, ${child.length} characters)`;
      else out[key] = redactConfig(child, options, childPath);
    }
    return out;
  }
  return value;
}
