import { createHmac } from "node:crypto";
import { GatehouseAdminApp } from "../apps/admin-app.ts";
import { GatehouseClientApp } from "../apps/client-app.ts";
import type { ClientAppOptions } from "../apps/options.ts";
import { GatehouseServerApp } from "../apps/server-app.ts";
import { createRuntime, type Runtime } from "../http/runtime.ts";
import type { ProjectKeys, RunningGatehouse } from "./gatehouse-server.ts";

/** Records the API paths an app called, to see refreshes and retries happen. */
export function recordingRuntime(overrides: Partial<Runtime> = {}) {
  const calls: string[] = [];
  const base = createRuntime();
  const runtime: Partial<Runtime> = {
    fetch: (input, init) => {
      const url = new URL(String(input));
      calls.push(`${init?.method ?? "GET"} ${url.pathname.replace(/^\/api\/v1/, "")}`);
      return base.fetch(input, init);
    },
    sleep: async () => {},
    ...overrides,
  };
  return { runtime, calls };
}

type AppOptions = Omit<ClientAppOptions, "projectId" | "baseUrl">;

/** Apps of the three kinds for one project of a running server; memory store, no redirects, no prefetch. */
export function appsFor(
  gatehouse: Pick<RunningGatehouse, "baseUrl">,
  project: { id: string; keys: ProjectKeys },
) {
  const common = (options: AppOptions): ClientAppOptions => ({
    projectId: project.id,
    baseUrl: gatehouse.baseUrl,
    publishableClientKey: project.keys.publishableClientKey,
    tokenStore: "memory",
    redirectMethod: "none",
    noAutomaticPrefetch: true,
    ...options,
  });
  return {
    client: (options: AppOptions = {}) => new GatehouseClientApp(common(options)),
    server: (options: AppOptions = {}) =>
      new GatehouseServerApp({ ...common(options), secretServerKey: project.keys.secretServerKey }),
    admin: (options: AppOptions = {}) =>
      new GatehouseAdminApp({
        ...common(options),
        secretServerKey: project.keys.secretServerKey,
        superSecretAdminKey: project.keys.superSecretAdminKey,
      }),
  };
}

let counter = 0;
/** A unique address per call. */
export function uniqueEmail(prefix = "user"): string {
  counter++;
  return `${prefix}-${counter}-${Math.random().toString(36).slice(2, 8)}@example.com`;
}

/** The current 6-digit TOTP code of a secret (RFC 6238, SHA-1, 30 s), to answer MFA in tests. */
export function totpCode(secret: Uint8Array, now = Date.now()): string {
  const counterBytes = Buffer.alloc(8);
  counterBytes.writeBigUInt64BE(BigInt(Math.floor(now / 1000 / 30)));
  const hmac = createHmac("sha1", Buffer.from(secret)).update(counterBytes).digest();
  const offset = hmac[hmac.length - 1]! & 0xf;
  const value = (hmac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000;
  return value.toString().padStart(6, "0");
}

/** What a call that must fail threw (a known error, usually); fails the test if it resolved. */
export async function errorOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error("expected the call to fail");
    },
    (error: unknown) => error,
  );
}

/** A client app signed in as a new user (password sign-up, no verification email), and that user. */
export async function signedUpClient(apps: ReturnType<typeof appsFor>, label = "user") {
  const app = apps.client();
  const result = await app.signUpWithCredential({
    email: uniqueEmail(label),
    password: "correct horse battery",
    noVerificationCallback: true,
  });
  if (result.status !== "ok") throw result.error;
  return { app, user: await app.getUser({ or: "throw" }) };
}
