import { unsupportedErrorMessage } from "./catalogue/format.ts";
import { type ConcreteKnownErrorCode, type KnownErrorCode, knownErrorCatalogue } from "./catalogue.ts";
import { type KnownErrorWireFacts, wireFactsOf } from "./code-table.ts";
import type { KnownErrorDefinition } from "./definition.ts";

type DetailKeyOf<C extends KnownErrorCode> =
  (typeof knownErrorCatalogue)[C] extends KnownErrorDefinition<infer K> ? K : never;

/** The details a given code carries; `{}` for codes without details. */
export type KnownErrorDetails<C extends KnownErrorCode> = { [K in DetailKeyOf<C>]: unknown };

/** The JSON body of a known-error response (PROTOCOL.md §2.1). */
export type KnownErrorJson = { code: string; details?: Record<string, unknown>; error: string };

/**
 * The details as they go on the wire: exactly the declared keys, in the declared order. A missing or
 * `undefined` value becomes `null` (JSON.stringify would otherwise drop the key), and undeclared keys are left
 * out. Codes without declared keys carry no details at all. Codes this version does not know keep whatever
 * they were given.
 */
function wireDetails(
  definition: KnownErrorWireFacts | undefined,
  details: Record<string, unknown> | undefined,
): Record<string, unknown> | undefined {
  if (!definition) return details;
  if (definition.detailKeys.length === 0) return undefined;
  const source = isRecord(details) ? details : {};
  const result: Record<string, unknown> = {};
  for (const key of definition.detailKeys) {
    result[key] = Object.hasOwn(source, key) ? (source[key] ?? null) : null;
  }
  return result;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * An error with a wire code, an HTTP status and details. Thrown by the server, rebuilt by the SDK.
 * `isKnownError(e, "INVALID_ACCESS_TOKEN")` is true for the code itself and for every member of that family.
 * The class reads only the code table (code-table.ts), not the catalogue's messages, so that a browser bundle stays
 * small: its message is the one given (the wire's `error` when rebuilt), else the code. `knownError()` builds one
 * with the catalogue's message.
 */
export class KnownError extends Error {
  override readonly name = "KnownError";
  readonly code: string;
  readonly status: number;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: string, details?: Record<string, unknown>, message?: string) {
    const definition = wireFactsOf(code);
    if (definition && definition.status === null) {
      throw new TypeError(`${code} is an abstract known-error family and cannot be used as an error itself.`);
    }
    const normalized = wireDetails(definition, details);
    super(message ?? code);
    this.code = code;
    this.status = definition?.status ?? 500;
    this.details = normalized;
  }

  /** The codes this error answers to: its own and its families'. */
  get families(): readonly string[] {
    return [this.code, ...(wireFactsOf(this.code)?.parents ?? [])];
  }

  toJSON(): KnownErrorJson {
    return this.details === undefined
      ? { code: this.code, error: this.message }
      : { code: this.code, details: this.details, error: this.message };
  }

  /** Rebuilds a typed error from a response body. A code this version does not know becomes UNSUPPORTED_ERROR. */
  static fromJSON(json: KnownErrorJson): KnownError {
    const definition = typeof json.code === "string" ? wireFactsOf(json.code) : undefined;
    if (!definition || definition.status === null) {
      return new KnownError(
        "UNSUPPORTED_ERROR",
        { originalErrorCode: json.code },
        unsupportedErrorMessage(json.code),
      );
    }
    const details = isRecord(json.details) ? json.details : undefined;
    const message = typeof json.error === "string" ? json.error : undefined;
    return new KnownError(json.code, details, message);
  }
}

/**
 * Builds a known error with details typed by its code and, unless one is given, the catalogue's message for them.
 * Abstract families cannot be built.
 */
export function knownError<C extends ConcreteKnownErrorCode>(
  code: C,
  ...args: DetailKeyOf<C> extends never
    ? [details?: undefined, message?: string]
    : [details: KnownErrorDetails<C>, message?: string]
): KnownError {
  const [details, message] = args;
  const given = details as Record<string, unknown> | undefined;
  // The type allows only catalogue codes, but a caller in plain JavaScript may still pass another.
  const definition: KnownErrorDefinition | undefined = Object.hasOwn(knownErrorCatalogue, code)
    ? knownErrorCatalogue[code]
    : undefined;
  return new KnownError(code, given, message ?? definition?.message(wireDetails(definition, given) ?? {}));
}

/** True when `error` is a KnownError of `code` or of a family below `code`. */
export function isKnownError(error: unknown, code?: KnownErrorCode): error is KnownError {
  if (!(error instanceof KnownError)) return false;
  return code === undefined || error.families.includes(code);
}
