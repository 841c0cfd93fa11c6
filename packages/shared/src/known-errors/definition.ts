/**
 * How a known error is described. The catalogue (catalogue.ts) holds one of these per wire code; the server
 * throws `KnownError`s built from it and the SDK rebuilds them from a response body's `code` and `details`.
 */
export type KnownErrorDefinition<DetailKey extends string = string> = {
  /** HTTP status; `null` for abstract parents, which are never sent themselves. */
  readonly status: number | null;
  /** The exact `details` keys on the wire, in order. Empty means `details` is left out of the body. */
  readonly detailKeys: readonly DetailKey[];
  /** The human-readable `error` text, built from the details. */
  readonly message: (details: Readonly<Record<DetailKey, unknown>>) => string;
  /** Abstract families this error belongs to, nearest first (used for `isInstance`-style checks). */
  readonly parents: readonly string[];
};

/** Defines a concrete (sendable) known error. */
export function defineError<const DetailKey extends string = never>(
  status: number,
  detailKeys: readonly DetailKey[],
  message: string | ((details: Readonly<Record<DetailKey, unknown>>) => string),
  parents: readonly string[] = [],
): KnownErrorDefinition<DetailKey> {
  return {
    status,
    detailKeys,
    message: typeof message === "string" ? () => message : message,
    parents,
  };
}

/** Defines an abstract parent family: never sent, only used to group codes. */
export function defineFamily(parents: readonly string[] = []): KnownErrorDefinition<never> {
  return { status: null, detailKeys: [], message: () => "", parents };
}
