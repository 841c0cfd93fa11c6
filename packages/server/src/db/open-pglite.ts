import { execFile } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { setFlagsFromString } from "node:v8";
import { PGlite } from "@electric-sql/pglite";
import { btree_gin } from "@electric-sql/pglite/contrib/btree_gin";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { drizzle } from "drizzle-orm/pglite";
import { SERVER_PACKAGE_ROOT } from "../package-root.ts";
import { StartupError } from "../startup-error.ts";
import { lockDataDir } from "./data-dir-lock.ts";
import type { Database, DatabaseHandle } from "./handle.ts";
import { migrateDatabase, SchemaNewerError } from "./migrate.ts";
import * as schema from "./schema.ts";

/**
 * V8 flags for PGlite's WebAssembly, the whole process's, set before the engine's module is compiled (on PostgreSQL
 * this file is never loaded).
 *
 * The tiering budget: V8 compiles a WebAssembly function with its fast baseline compiler first and recompiles it with
 * its optimizing one once it has run ~1.8 MB of code ("hot"; Node 20's default budget). Opening PGlite, checking
 * migrations and the first requests make many of PostgreSQL's functions hot that a settled server seldom runs again.
 * Their recompilation was ~80 MiB of the process's memory at ready (malloc'd by the compiler threads and kept), 0.25 s
 * of start and, in a test worker that opens PGlite and exits, CPU taken from the tests. A 100× budget leaves start to
 * the baseline code while what a running server keeps doing still gets optimized: user list pages and searches over
 * 5,000 users (bench/users-paging.mjs) took the same time as with the default, against ~30% and ~2× longer with no
 * optimizing at all.
 *
 * One compilation task: what still gets optimized within the first requests is a few of PostgreSQL's giant functions
 * (the parser, copyObject and another of ~38 kB), each taking 8-23 MB of compiler memory for up to a second. Compiled
 * side by side on V8's worker threads, each thread's malloc arena kept its peak after the compile ended (glibc keeps
 * a thread arena's freed memory while later allocations sit above it): 226-244 MiB at ready, settled. One at a time,
 * 221-222 MiB, and the second core stays free for serving while they compile.
 */
export const PGLITE_V8_FLAGS = [`--wasm-tiering-budget=${180_000_000}`, "--wasm-num-compilation-tasks=1"];

// PostgreSQL's default 128 MB of shared buffers is allocated and zeroed inside PGlite's WebAssembly memory at every
// start: ~110 MiB of the process's memory and ~0.1 s. 16 MB holds an embedded database's working set; pages beyond
// it are read back from the OS file cache.
const START_PARAMS = [...PGlite.defaultStartParams, "-c", "shared_buffers=16MB"];

const INITDB_SCRIPT = join(SERVER_PACKAGE_ROOT, "src/db/pglite-initdb.mjs");

/**
 * Creates the database in an empty data directory in a child process (pglite-initdb.mjs says why): the server
 * then opens it as on any later start, and its memory at ready is a second start's.
 */
async function createDatabaseFiles(dataDir: string): Promise<void> {
  try {
    await promisify(execFile)(process.execPath, [INITDB_SCRIPT, dataDir, JSON.stringify(START_PARAMS)], {
      maxBuffer: 16 * 1024 * 1024,
    });
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr?.trim();
    throw new Error(`creating the embedded database in ${dataDir} failed${stderr ? `: ${stderr}` : ""}`, {
      cause: error,
    });
  }
}

/**
 * Embedded PGlite in `dataDir` (in memory when undefined, optionally loaded from a dump), after applying pending
 * migrations. Imported by `openDatabase` only when no connection string is given, so a PostgreSQL instance never
 * loads PGlite.
 */
export async function openPglite(options: {
  dataDir?: string | undefined;
  pgliteDataDirDump?: Blob | undefined;
}): Promise<DatabaseHandle> {
  for (const flag of PGLITE_V8_FLAGS) setFlagsFromString(flag);
  // PGlite creates its own directory but not missing parents, and a fresh GATEHOUSE_DATA_DIR may not exist yet.
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  const unlock = options.dataDir ? lockDataDir(options.dataDir) : () => {};
  try {
    if (options.dataDir && !existsSync(join(options.dataDir, "PG_VERSION"))) {
      await createDatabaseFiles(options.dataDir);
    }
    // The trigram search indexes of migration 0010 need both extensions (about 21 kB of bundles, loaded at start).
    const client = new PGlite({
      dataDir: options.dataDir,
      loadDataDir: options.dataDir === undefined ? options.pgliteDataDirDump : undefined,
      extensions: { pg_trgm, btree_gin },
      startParams: START_PARAMS,
    });
    const db = drizzle(client, { schema }) as unknown as Database;
    await migrateDatabase(db).catch((error: unknown) => {
      throw error instanceof SchemaNewerError ? new StartupError(error.message) : error;
    });
    const close = async () => {
      try {
        await client.close();
      } finally {
        unlock();
      }
    };
    // One engine in this process: its notifications reach its own listeners, after the sending transaction commits.
    const listen = async (channel: string, onNotify: (payload: string) => void) => {
      const unlisten = await client.listen(channel, onNotify);
      return () => unlisten();
    };
    return { db, kind: "pglite", hearsNotify: true, listen, close };
  } catch (error) {
    unlock();
    throw error;
  }
}
