/**
 * JSON value types and the small object helpers the config code shares.
 */

export type JsonPrimitive = string | number | boolean | null;
export type JsonValue = JsonPrimitive | JsonValue[] | JsonObject;
export type JsonObject = { [key: string]: JsonValue };

/**
 * A config override: a JSON object whose keys may use dot notation (`"auth.oauth.providers.google": {...}`).
 * Each level (project, branch, environment) stores one.
 */
export type ConfigOverride = JsonObject;

/** True for `{...}` objects (object literals, `JSON.parse` output, null-prototype objects); false for arrays, null, class instances. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Own enumerable property read; never returns inherited members such as `constructor`. */
export function getOwn(object: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}

/** Deep copy of a JSON value; `undefined` entries inside objects are dropped. */
export function cloneJson<T extends JsonValue>(value: T): T {
  if (Array.isArray(value)) return value.map((item) => cloneJson(item)) as T;
  if (isPlainObject(value)) {
    const copy: JsonObject = {};
    for (const [key, item] of Object.entries(value)) {
      if (item === undefined || key === "__proto__") continue;
      copy[key] = cloneJson(item as JsonValue);
    }
    return copy as T;
  }
  return value;
}

/** Short human-readable description of a value, for problem messages. */
export function describeValue(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (typeof value === "string") {
    const text = JSON.stringify(value);
    return `the string ${text.length > 60 ? `${text.slice(0, 57)}…"` : text}`;
  }
  if (typeof value === "number") return `the number ${value}`;
  if (typeof value === "boolean") return `${value}`;
  if (Array.isArray(value)) return "an array";
  if (isPlainObject(value)) return "an object";
  return `a value of type ${typeof value}`;
}
