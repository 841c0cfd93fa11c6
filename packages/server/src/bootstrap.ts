import path from "node:path";
import type { Hono } from "hono";
import { createApp } from "./app.ts";
import { IDLE_BACKSTOP_MS, wakeWorkersOnNotice } from "./background/work-notices.ts";
import { createTokenKeyring } from "./crypto/index.ts";
import { startEmbeddedMaintenance } from "./db/embedded-maintenance.ts";
import { type DatabaseHandle, openDatabase } from "./db/index.ts";
import type { AppDeps } from "./deps.ts";
import type { ServerEnv } from "./env.ts";
import { ActivityWriter } from "./features/activity/analytics.ts";
import { startEmailWorker } from "./features/emails/worker.ts";
import { startCountsRepair } from "./features/metrics/counts.ts";
import { type SeedResult, seedAdminUser, seedInternalProject } from "./features/project-admin/seed.ts";
import { ProjectCache } from "./features/projects/project-cache.ts";
import { onProjectChangeInProcess, PROJECT_CHANGES_CHANNEL } from "./features/projects/project-changes.ts";
import { featureHooks } from "./features/routes.ts";
import { startWebhookWorker } from "./features/webhooks/worker.ts";
import {
  createObservability,
  type Observability,
  observeDatabasePool,
  observeQueues,
  QUIET_OBSERVABILITY,
} from "./observability/index.ts";

export type Gatehouse = {
  app: Hono;
  deps: AppDeps;
  database: DatabaseHandle;
  seed: SeedResult;
  /**
   * The first step of a shutdown (main.ts): /ready answers 503 from now on, and the background workers stop
   * claiming and finish or hand back what they hold, within `handBackAfterMs`. Requests are still served.
   */
  beginDraining: (options: { handBackAfterMs: number }) => Promise<void>;
  close: () => Promise<void>;
};

/**
 * Opens the database (migrating it), seeds the internal project and builds the app. Used by `main.ts` and by tests
 * that need a real server; `database` may be passed in when a test prepared one.
 */
export async function bootGatehouse(
  env: ServerEnv,
  database?: DatabaseHandle,
  options: {
    emailWorker?: boolean;
    webhookWorker?: boolean;
    /**
     * False makes this instance hear project changes only through the database's notifications, as a second
     * process would: tests of several instances in one process set it on all but the first.
     */
    hearsChangesInProcess?: boolean;
    /** Metrics, logger and tracing made by the caller (tests that read the log); else made from `env`. */
    observability?: Observability;
  } = {},
): Promise<Gatehouse> {
  const observability =
    options.observability ?? (await createObservability(env.observability ?? QUIET_OBSERVABILITY));
  const handle =
    database ??
    (await openDatabase({
      databaseUrl: env.databaseUrl,
      dataDir: path.join(env.dataDir, "pglite"),
      postgres: {
        pooling: env.database.pooling,
        directUrl: env.database.directUrl,
        migrations: env.database.migrateOnStart ? "apply" : "check",
      },
    }));
  observeDatabasePool(handle, observability);
  observeQueues(observability.metrics, handle.db);
  const keyring = createTokenKeyring({ masterSecret: env.secret, issuerBaseUrl: env.baseUrl });
  const activity = new ActivityWriter(handle.db);
  const projectCache = new ProjectCache(
    { db: handle.db, env },
    { onLookup: (hit) => observability.metrics.cacheLookup("project", hit) },
  );
  const stopHearingInProcess =
    options.hearsChangesInProcess === false
      ? () => {}
      : onProjectChangeInProcess((projectId) =>
          projectCache.invalidate(projectId, { announcedInTransaction: true }),
        );
  const stopListening = await handle.listen(
    PROJECT_CHANGES_CHANNEL,
    (projectId) => projectCache.invalidate(projectId, { committed: true }),
    () => projectCache.clear(),
  );
  const lifecycle = { draining: false };
  const deps: AppDeps = {
    env,
    db: handle.db,
    keyring,
    hooks: featureHooks,
    activity,
    projectCache,
    lifecycle,
    observability,
  };
  const seed = await seedInternalProject(deps, {
    publishableClientKey: env.seed.publishableClientKey,
    secretServerKey: env.seed.secretServerKey,
    superSecretAdminKey: env.seed.superSecretAdminKey,
  });
  await seedAdminUser(deps, env);
  // Workers that hear the wake-up notices poll only as a backstop (background/work-notices.ts); the others keep
  // their short default polls.
  const workerTiming = handle.hearsNotify ? { intervalMs: IDLE_BACKSTOP_MS } : {};
  // Tests that care about delivery start their own worker and drain it; everywhere else email flows on its own.
  const emailWorker = options.emailWorker === false ? null : startEmailWorker(deps, workerTiming);
  if (emailWorker) deps.emailWorker = emailWorker;
  // The same for webhooks: tests start their own worker and drain it.
  const webhookWorker = options.webhookWorker === false ? null : startWebhookWorker(deps, workerTiming);
  if (webhookWorker) deps.webhookWorker = webhookWorker;
  const stopHearingWork =
    handle.hearsNotify && (emailWorker || webhookWorker)
      ? await wakeWorkersOnNotice(handle, (queue) =>
          queue === "emails" ? deps.emailWorker : deps.webhookWorker,
        )
      : async () => {};
  // The metrics' counts recounted at start and hourly (features/metrics/counts.ts).
  const countsRepair = startCountsRepair(handle.db);
  // PGlite has no autovacuum of its own (db/embedded-maintenance.ts); PostgreSQL does.
  const maintenance = handle.kind === "pglite" ? startEmbeddedMaintenance(handle.db) : null;
  const app = createApp(deps);
  return {
    app,
    deps,
    database: handle,
    seed,
    beginDraining: async ({ handBackAfterMs }) => {
      lifecycle.draining = true;
      await Promise.all([emailWorker?.stop({ handBackAfterMs }), webhookWorker?.stop({ handBackAfterMs })]);
    },
    close: async () => {
      await emailWorker?.stop();
      await webhookWorker?.stop();
      await countsRepair.stop();
      // The last buffered activity events, while the database is still open.
      await activity.stop();
      await maintenance?.stop();
      stopHearingInProcess();
      await stopListening();
      await stopHearingWork();
      await handle.close();
      await observability.close();
    },
  };
}
