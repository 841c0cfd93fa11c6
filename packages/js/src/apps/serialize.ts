import type { ClientAppOptions } from "./options.ts";

/**
 * What a server hands to the browser to build the same client app there (`toClientJson`): only client-safe
 * options, plus the unique identifier that makes both sides one app.
 */
export type ClientAppJson = {
  projectId: string;
  baseUrl: string;
  publishableClientKey: string;
  tokenStore: "memory" | "cookie";
  redirectMethod: "window" | "none";
  urls: ClientAppOptions["urls"];
  extraRequestHeaders?: Record<string, string>;
  oauthScopesOnSignIn?: ClientAppOptions["oauthScopesOnSignIn"];
  noAutomaticPrefetch?: boolean;
  uniqueIdentifier: string;
};

/** Stable JSON: keys sorted, so two equal configurations compare equal whatever order they were written in. */
export function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner) =>
    inner && typeof inner === "object" && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : inner,
  );
}

type Registered = { configuration: string; app: unknown };
const appsByIdentifier = new Map<string, Registered>();

/**
 * Records the app with `uniqueIdentifier`. A second app under the same identifier must have the same
 * configuration; then the first app is returned, so both sides share one instance.
 */
export function registerUniqueApp<A>(uniqueIdentifier: string, configuration: unknown, app: A): A {
  const serialized = stableJson(configuration);
  const existing = appsByIdentifier.get(uniqueIdentifier);
  if (existing) {
    if (existing.configuration !== serialized) {
      throw new Error(
        `A client app with the unique identifier ${JSON.stringify(uniqueIdentifier)} already exists with a different configuration; apps with the same unique identifier must have identical configuration.`,
      );
    }
    return existing.app as A;
  }
  appsByIdentifier.set(uniqueIdentifier, { configuration: serialized, app });
  return app;
}

export function findUniqueApp(uniqueIdentifier: string): Registered | undefined {
  return appsByIdentifier.get(uniqueIdentifier);
}

export function randomIdentifier(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}
