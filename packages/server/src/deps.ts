import type { TokenKeyring } from "./crypto/index.ts";
import type { Database } from "./db/index.ts";
import type { ServerEnv } from "./env.ts";
import type { FeatureHooks } from "./features/hooks.ts";

/** What every route handler and service can reach. Built once per process by `createApp`. */
export type AppDeps = {
  env: ServerEnv;
  db: Database;
  keyring: TokenKeyring;
  /** Every feature's hooks (features/routes.ts), for the services that run them, e.g. user creation. */
  hooks: FeatureHooks;
  /** Delivers queued emails; `wake()` asks it to look at the outbox now. Absent in tests that do not deliver. */
  emailWorker?: { wake: () => void };
};
