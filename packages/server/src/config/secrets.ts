/**
 * Config paths that hold secrets which must be read back (so they are encrypted, not hashed, at rest). `*` stands
 * for any single record key.
 */
import { type ConfigOverride, cloneJson, isPlainObject, type JsonObject, type JsonValue } from "./json.ts";

export const CONFIG_SECRET_PATHS = [
  "auth.oauth.providers.*.clientSecret",
  "auth.oauth.providers.*.applePrivateKey",
  "emails.server.password",
] as const;

const SECRET_PATTERNS = CONFIG_SECRET_PATHS.map((pattern) => pattern.split("."));

/** Whether a config path (dot notation or segments) is one of `CONFIG_SECRET_PATHS`. */
export function isSecretConfigPath(path: string | readonly string[]): boolean {
  const segments = typeof path === "string" ? path.split(".") : path;
  return SECRET_PATTERNS.some(
    (pattern) =>
      pattern.length === segments.length && pattern.every((part, i) => part === "*" || part === segments[i]),
  );
}

/**
 * Returns a copy of `override` (or of a rendered config) in which every string at a secret path has been passed
 * through `transform`; for the storage layer to encrypt before writing and decrypt after reading. Keys keep their
 * spelling (a dotted key stays dotted), since a level's override is read back as it was written.
 */
export function mapConfigSecrets(
  override: ConfigOverride,
  transform: (value: string, path: string) => string,
): ConfigOverride {
  const walk = (node: JsonObject, prefix: string[]): JsonObject => {
    const out: JsonObject = {};
    for (const [key, value] of Object.entries(node)) {
      if (value === undefined || key === "__proto__") continue;
      const path = [...prefix, ...key.split(".")];
      if (typeof value === "string" && isSecretConfigPath(path)) out[key] = transform(value, path.join("."));
      else if (isPlainObject(value)) out[key] = walk(value as JsonObject, path);
      else out[key] = cloneJson(value as JsonValue);
    }
    return out;
  };
  return walk(override, []);
}
