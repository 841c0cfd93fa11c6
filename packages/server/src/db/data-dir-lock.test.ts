import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { StartupError } from "../startup-error.ts";
import { lockDataDir } from "./data-dir-lock.ts";

const dirs: string[] = [];
function freshDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "gatehouse-lock-"));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** The pid of a process that has exited, so nothing holds it right now. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]);
  return Number(child.stdout.toString());
}

describe("lockDataDir", () => {
  it("writes our pid and removes the lock on release", () => {
    const dir = freshDir();
    const release = lockDataDir(dir);
    expect(readFileSync(join(dir, "gatehouse.lock"), "utf8").trim()).toBe(String(process.pid));
    release();
    expect(existsSync(join(dir, "gatehouse.lock"))).toBe(false);
  });

  it("refuses while another live process holds it, naming the process and the way out", () => {
    const dir = freshDir();
    // Our parent (the test runner's) is alive for as long as this test runs.
    writeFileSync(join(dir, "gatehouse.lock"), `${process.ppid}\n`);
    let thrown: unknown;
    try {
      lockDataDir(dir);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(StartupError);
    expect((thrown as Error).message).toContain(`pid ${process.ppid}`);
    expect((thrown as Error).message).toContain("DATABASE_URL");
    // The other process's lock is left alone.
    expect(readFileSync(join(dir, "gatehouse.lock"), "utf8").trim()).toBe(String(process.ppid));
  });

  it("takes over the lock of a process that died (after a kill -9), and a lock holding our own pid", () => {
    const dir = freshDir();
    writeFileSync(join(dir, "gatehouse.lock"), `${deadPid()}\n`);
    lockDataDir(dir)();
    writeFileSync(join(dir, "gatehouse.lock"), `${process.pid}\n`);
    const release = lockDataDir(dir);
    expect(readFileSync(join(dir, "gatehouse.lock"), "utf8").trim()).toBe(String(process.pid));
    release();
  });

  it("takes over an unreadable lock, and release leaves a lock that is no longer ours", () => {
    const dir = freshDir();
    writeFileSync(join(dir, "gatehouse.lock"), "not a pid");
    const release = lockDataDir(dir);
    writeFileSync(join(dir, "gatehouse.lock"), `${process.ppid}\n`);
    release();
    expect(readFileSync(join(dir, "gatehouse.lock"), "utf8").trim()).toBe(String(process.ppid));
  });
});
