/**
 * Small helpers the catalogue's message builders use to put detail values into sentences.
 * Detail values are typed `unknown` (they may come back from the wire), so none of these trust their input.
 */

/** A detail value as plain text: strings as they are, anything else as JSON. */
export function text(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === undefined) return "undefined";
  return JSON.stringify(value) ?? String(value);
}

/** A detail value in double quotes, e.g. `"my-project"` (JSON string syntax, so quotes inside are escaped). */
export function quoted(value: unknown): string {
  return typeof value === "string" ? JSON.stringify(value) : text(value);
}

/** A millisecond timestamp as an ISO date, or `undefined` when the value is not a usable timestamp. */
export function isoDate(millis: unknown): string | undefined {
  if (typeof millis !== "number" || !Number.isFinite(millis)) return undefined;
  const date = new Date(millis);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** The `type` of a `restricted_reason` detail (`{ type }`), or the value itself as text. */
export function restrictedReasonType(reason: unknown): string {
  if (typeof reason === "object" && reason !== null && "type" in reason) return text(reason.type);
  return text(reason);
}

/** A non-empty string detail, or the fallback when the detail is missing or not a string. */
export function stringOr(value: unknown, fallback: string): string {
  return typeof value === "string" && value.length > 0 ? value : fallback;
}

/** UNSUPPORTED_ERROR's message; KnownError.fromJSON gives it too, without loading the catalogue. */
export function unsupportedErrorMessage(originalErrorCode: unknown): string {
  return (
    "An error occurred that is not currently supported (possibly because it was added in a version of Gatehouse " +
    `that is newer than this client). The original unsupported error code was: ${text(originalErrorCode)}`
  );
}
