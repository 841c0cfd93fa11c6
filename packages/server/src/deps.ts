import type { TokenKeyring } from "./crypto/index.ts";
import type { Database } from "./db/index.ts";
import type { ServerEnv } from "./env.ts";
import type { ActivityWriter } from "./features/activity/analytics.ts";
import type { FeatureHooks } from "./features/hooks.ts";
import type { ProjectCache } from "./features/projects/project-cache.ts";
import type { Observability } from "./observability/index.ts";

/** What every route handler and service can reach. Built once per process by `createApp`. */
export type AppDeps = {
  env: ServerEnv;
  db: Database;
  keyring: TokenKeyring;
  /** Every feature's hooks (features/routes.ts), for the services that run them, e.g. user creation. */
  hooks: FeatureHooks;
  /** Each project's row, rendered config and key sets, kept per process and dropped when they change. */
  projectCache: ProjectCache;
  /** Buffers activity events (token refreshes, sign-ins, page views) and writes them in batches. */
  activity: ActivityWriter;
  /** Delivers queued emails; `wake()` asks it to look at the outbox now. Absent in tests that do not deliver. */
  emailWorker?: { wake: () => void; isRunning?: () => boolean };
  /** Fans events out to webhook endpoints and delivers them; `wake()` asks it to look now. Absent in most tests. */
  webhookWorker?: { wake: () => void; isRunning?: () => boolean };
  /** Set when this instance begins to shut down (main.ts): from then on /ready answers 503 (http/readiness.ts). */
  lifecycle?: { draining: boolean };
  /** Metrics (`observability.metrics`), the logger and tracing of this app (observability/). */
  observability: Observability;
};
