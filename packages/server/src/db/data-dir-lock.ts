/**
 * One process per embedded database. PGlite is PostgreSQL compiled into this process: two processes opening the same
 * data directory would be two database engines writing the same files with no shared locking, which corrupts them.
 * PostgreSQL proper is what several instances share (DATABASE_URL); the embedded database refuses a second opener.
 *
 * The lock is a file created with O_EXCL holding the owner's process id. A lock whose process is gone (a kill -9, a
 * power cut) is taken over, so a crash never needs a hand to clean up. A lock holding our own pid is ours: in a
 * container the restarted server is often pid 1 again.
 */
import { closeSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { StartupError } from "../startup-error.ts";

const LOCK_FILE_NAME = "gatehouse.lock";

function isProcessAlive(pid: number): boolean {
  try {
    // Signal 0 checks that the process exists without touching it; EPERM means it exists under another user.
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function readLockOwner(lockPath: string): number | null {
  try {
    const pid = Number.parseInt(readFileSync(lockPath, "utf8").trim(), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

function tryCreate(lockPath: string): boolean {
  try {
    const fd = openSync(lockPath, "wx", 0o600);
    writeSync(fd, `${process.pid}\n`);
    closeSync(fd);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
}

/** Takes the data directory's lock or throws a message that says what to do; returns the release function. */
export function lockDataDir(dataDir: string): () => void {
  const lockPath = join(dataDir, LOCK_FILE_NAME);
  // Two rounds: the second runs only after removing a dead owner's lock, and whoever creates the file first wins.
  for (let round = 0; round < 2; round++) {
    if (tryCreate(lockPath)) return () => releaseIfOurs(lockPath);
    const owner = readLockOwner(lockPath);
    if (owner !== null && owner !== process.pid && isProcessAlive(owner)) {
      throw new StartupError(
        `another Gatehouse process (pid ${owner}) is using the embedded database in ${dataDir}. Stop it first, ` +
          "or run several instances on PostgreSQL with DATABASE_URL. If no such process is running Gatehouse, " +
          `delete ${lockPath}.`,
      );
    }
    rmSync(lockPath, { force: true });
  }
  throw new StartupError(
    `could not lock the embedded database in ${dataDir}: ${lockPath} keeps reappearing.`,
  );
}

function releaseIfOurs(lockPath: string): void {
  if (readLockOwner(lockPath) === process.pid) rmSync(lockPath, { force: true });
}
