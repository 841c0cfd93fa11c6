/**
 * Every request names a project, and authenticating it needs the project's row, its rendered config and its key
 * sets: three reads and a config render (about a third of a `/users/me` before this cache). They change rarely, so
 * each process keeps them, dropped when they change (project-changes.ts: at once within this process, by
 * LISTEN/NOTIFY across processes) and re-read at most every TTL_MS anyway, in case a notification was lost.
 */
import type { RenderedConfig } from "../../config/index.ts";
import type { Database } from "../../db/index.ts";
import type { ProjectApiKeySetRow } from "../project-keys/schema.ts";
import { listKeySets } from "../project-keys/service.ts";
import { type ConfigStoreDeps, getRenderedConfig } from "./config-store.ts";
import type { ProjectRow } from "./schema.ts";
import { findProject } from "./service.ts";

export type CachedProject = {
  readonly project: ProjectRow;
  readonly config: RenderedConfig;
  readonly keySets: readonly ProjectApiKeySetRow[];
};

/** The backstop for a lost notification (a listening connection that dropped reports its gap, so this is rare). */
const TTL_MS = 30_000;
/**
 * A rendered config is a few tens of kilobytes; 1,000 of them bound the cache to tens of megabytes however many
 * projects a database holds. The least recently used goes first.
 */
const MAX_ENTRIES = 1_000;
/**
 * A change announced in this process is dropped at once, but its transaction has not committed yet: a read made
 * meanwhile sees the old rows, and the notification that drops it again arrives a few milliseconds after the commit,
 * possibly after the writer's own next request. So until that notification arrives, reads of that project are
 * served but not kept, for at most this long (a rolled-back transaction sends none). Five seconds covers any sane
 * config transaction; a slower one is still caught by the notification at its commit.
 */
const UNCOMMITTED_CHANGE_MS = 5_000;

type Entry = { value: CachedProject; loadedAt: number };
type Load = { promise: Promise<CachedProject | null>; superseded: boolean };
type ReadProject = (projectId: string) => Promise<CachedProject | null>;

export class ProjectCache {
  readonly #store: ConfigStoreDeps;
  readonly #entries = new Map<string, Entry>();
  /**
   * Reads in flight per project, oldest first; the newest is shared by the requests that ask meanwhile. While a
   * change may be uncommitted each request reads for itself, so several can be in flight, and a change must mark
   * every one of them `superseded`: a forgotten older one, finishing last, would keep the old rows for the TTL.
   */
  readonly #loads = new Map<string, Set<Load>>();
  /** Projects with a change announced here that may not have committed yet, and until when that is assumed. */
  readonly #uncommittedUntil = new Map<string, number>();
  readonly #now: () => number;
  readonly #read: ReadProject;
  readonly #onLookup: (hit: boolean) => void;

  /**
   * `now` and `read` stand in for the clock and the database in tests that hold a read at a chosen point;
   * `onLookup` hears whether each `get` was answered from the cache (the hit-ratio metric).
   */
  constructor(
    store: ConfigStoreDeps,
    options: { now?: () => number; read?: ReadProject; onLookup?: (hit: boolean) => void } = {},
  ) {
    this.#store = store;
    this.#now = options.now ?? Date.now;
    this.#read = options.read ?? ((projectId) => readProject(this.#store, projectId));
    this.#onLookup = options.onLookup ?? (() => {});
  }

  /** The project with its config and key sets, or null when no such project exists (never cached). */
  async get(projectId: string): Promise<CachedProject | null> {
    const entry = this.#entries.get(projectId);
    if (entry && this.#now() - entry.loadedAt < TTL_MS) {
      // Re-inserting keeps the Map in least-recently-used order.
      this.#entries.delete(projectId);
      this.#entries.set(projectId, entry);
      this.#onLookup(true);
      return entry.value;
    }
    this.#onLookup(false);
    // While a change announced here may be uncommitted, a read in flight may have begun before the commit: a request
    // that may come after it reads for itself rather than take that read's old rows.
    const running = newest(this.#loads.get(projectId));
    if (running && !this.#mayBeUncommitted(projectId)) return running.promise;
    return this.#load(projectId);
  }

  /**
   * Drops a project: its next request reads it again. `announcedInTransaction`: the change is being written in this
   * process and may not be committed yet (see UNCOMMITTED_CHANGE_MS). `committed`: a notification, sent when a
   * transaction that changed the project committed; it ends that wait. Not counted per change: PostgreSQL delivers
   * one notification for a transaction however often it announced, and when two transactions overlap the first
   * commit ends the wait a little early; a read made in between is dropped again by the second's notification a
   * few milliseconds later, which is the race the wait narrows, not a stale cache.
   */
  invalidate(
    projectId: string,
    options: { announcedInTransaction?: boolean; committed?: boolean } = {},
  ): void {
    if (options.announcedInTransaction) {
      this.#uncommittedUntil.set(projectId, this.#now() + UNCOMMITTED_CHANGE_MS);
    } else if (options.committed) {
      this.#uncommittedUntil.delete(projectId);
    }
    this.#entries.delete(projectId);
    // Reads in flight may have seen the old rows; whoever already waits on one gets them, nobody else.
    for (const load of this.#loads.get(projectId) ?? []) load.superseded = true;
    this.#loads.delete(projectId);
  }

  /**
   * Drops everything (notifications may have been missed). A change announced here and not yet committed keeps its
   * window: its notification may be among the missed ones, so only the window's end lets reads be kept again.
   */
  clear(): void {
    this.#entries.clear();
    for (const loads of this.#loads.values()) for (const load of loads) load.superseded = true;
    this.#loads.clear();
  }

  async #load(projectId: string): Promise<CachedProject | null> {
    const load: Load = { promise: this.#read(projectId), superseded: false };
    let loads = this.#loads.get(projectId);
    if (!loads) {
      loads = new Set();
      this.#loads.set(projectId, loads);
    }
    loads.add(load);
    try {
      const value = await load.promise;
      if (value && !load.superseded && !this.#mayBeUncommitted(projectId)) {
        this.#entries.set(projectId, { value, loadedAt: this.#now() });
        if (this.#entries.size > MAX_ENTRIES) {
          this.#entries.delete(this.#entries.keys().next().value!);
        }
      }
      return value;
    } finally {
      loads.delete(load);
      if (loads.size === 0 && this.#loads.get(projectId) === loads) this.#loads.delete(projectId);
    }
  }

  #mayBeUncommitted(projectId: string): boolean {
    const until = this.#uncommittedUntil.get(projectId);
    if (until === undefined) return false;
    if (this.#now() < until) return true;
    this.#uncommittedUntil.delete(projectId);
    return false;
  }
}

function newest(loads: Set<Load> | undefined): Load | undefined {
  let last: Load | undefined;
  for (const load of loads ?? []) last = load;
  return last;
}

async function readProject(store: ConfigStoreDeps, projectId: string): Promise<CachedProject | null> {
  const project = await findProject(store.db, projectId);
  if (!project) return null;
  const [config, keySets] = await Promise.all([
    getRenderedConfig(store, project.id),
    listKeySets(store.db as Database, project.id),
  ]);
  // Shared by every request of the next 30 s: a handler that changed it would change it for all of them.
  return deepFreeze({ project, config, keySets });
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
