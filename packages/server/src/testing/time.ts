import { eq, type SQL } from "drizzle-orm";
import type { PgColumn, PgTable } from "drizzle-orm/pg-core";
import { vi } from "vitest";
import { sha256Hex } from "../crypto/index.ts";
import type { AppDeps } from "../deps.ts";
import { verificationCodes } from "../features/verification-codes/schema.ts";

/**
 * Time in tests, in one place. Nothing sleeps: things expire because a test moves their expiry into the past, and
 * the clock moves because a test sets it (DECISIONS.md, Testing).
 */

/** A harness server, or anything else with the deps of a running Gatehouse (e.g. a listening server's). */
type WithDb = { deps: Pick<AppDeps, "db"> };

/** A table with an `expiresAt` column: verification codes, OAuth states and codes, sessions, API keys... */
type Expiring = PgTable & { expiresAt: PgColumn };

/** Moves the expiry of the rows `where` picks one second into the past, the way time would. */
export async function expireRows(server: WithDb, table: Expiring, where: SQL | undefined): Promise<void> {
  // Drizzle cannot check a `set` against a table it only knows as "has expiresAt"; the column name is checked above.
  await server.deps.db
    .update(table)
    .set({ expiresAt: new Date(Date.now() - 1000) } as never)
    .where(where);
}

/** Expires a verification code (any purpose) given as the user got it, in an email or an API answer. */
export function expireCode(server: WithDb, code: string): Promise<void> {
  // Codes are stored by the hash of their lowercase form (verification-codes/service.ts).
  return expireRows(server, verificationCodes, eq(verificationCodes.codeHash, sha256Hex(code.toLowerCase())));
}

/**
 * Sets the clock to `at` (epoch ms) for what follows. Only `Date` is faked: timers, promises and the database run
 * as usual, so a test cannot hang on it. Returns the way back to real time (or call `useRealClock`).
 */
export function setClock(at: number): () => void {
  vi.useFakeTimers({ toFake: ["Date"], now: at });
  return useRealClock;
}

/** Back to real time after `setClock`. */
export function useRealClock(): void {
  vi.useRealTimers();
}
