/**
 * Activity events (`$token-refresh`, `$sign-in`, `$page-view`, `$click`): what the metrics count, written without
 * costing the requests that cause them anything but an array push. `ActivityWriter.record` buffers an event in
 * memory; the buffer is written with one multi-row INSERT a second after its first event, as soon as it holds
 * `batchSize` events, and when the writer stops (bootstrap.ts's close). Flushes run one at a time, so a burst of
 * refreshes never queues more than one insert on the pool. Losing what a crash leaves in the buffer (a second of
 * activity) costs nothing that matters, which is why these events skip the transactional outbox that webhook
 * events go through (record.ts); they are written with `dispatched_at` set, so the webhook worker never sees them.
 * The same flush moves the refreshing users' `last_active_at` and their sessions' "last used" (one UPDATE each,
 * sessions/touches.ts), so a refresh writes nothing itself.
 *
 * A flush writes what was buffered when it started. Events that arrive meanwhile wait for their own second (or a
 * full batch): under steady traffic, draining until empty would turn into a stream of small INSERTs back to back.
 */
import { randomUuid } from "../../crypto/index.ts";
import type { Database } from "../../db/index.ts";
import { requestGeo } from "../../http/client-geo.ts";
import { countryOfIp } from "../../net/ip-info.ts";
import { type ActivityRow, insertActivity } from "../events/activity-rows.ts";
import { type SessionTouch, touchSessions } from "../sessions/touches.ts";
import { touchUsersActivity } from "../users/store.ts";

export type ActivityEventType =
  | "$token-refresh"
  | "$sign-in"
  | "$page-view"
  | "$click"
  /** A sign-up rule matched (features/sign-up-rules/apply.ts); GET /internal/sign-up-rules-stats counts them. */
  | "$sign-up-rule-trigger"
  /** A sign-up rule's condition failed to run on a sign-up (features/sign-up-rules/apply.ts); the stats show it. */
  | "$sign-up-rule-error";

export type ActivityEvent = {
  projectId: string;
  type: ActivityEventType;
  data: Record<string, unknown>;
  userId: string | null;
  teamId?: string | null;
  countryCode?: string | null;
  /** Now, unless told (`$page-view` and `$click` carry the browser's time). */
  occurredAt?: Date;
};

export type ActivityWriterOptions = {
  /** Events per INSERT, and the buffer size that triggers a flush before the timer does. */
  batchSize?: number;
  /** How long the first buffered event waits for company. */
  flushIntervalMs?: number;
  /** Past this many buffered events (the database is down or slow), new events are dropped and counted. */
  maxBuffered?: number;
};

/** A few hundred rows keep one INSERT's JSON parameter around 100 kB. */
const DEFAULT_BATCH_SIZE = 500;

export class ActivityWriter {
  readonly #db: Database;
  readonly #batchSize: number;
  readonly #flushIntervalMs: number;
  readonly #maxBuffered: number;
  #buffer: ActivityRow[] = [];
  /** The latest touch of each session refreshed since the last flush, by session id. */
  #sessionTouches = new Map<string, SessionTouch>();
  #timer: NodeJS.Timeout | null = null;
  /** The last flush started or chained; flushes never overlap. */
  #flushing: Promise<void> = Promise.resolve();
  /** A flush chained behind the running one that has not started yet: later calls share it. */
  #queued: Promise<void> | null = null;
  #stopped = false;
  /** Events and session touches dropped because the buffer was full or an insert failed, for the log. */
  dropped = 0;
  /** Events written so far. */
  written = 0;

  constructor(db: Database, options: ActivityWriterOptions = {}) {
    this.#db = db;
    this.#batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
    this.#flushIntervalMs = options.flushIntervalMs ?? 1000;
    this.#maxBuffered = options.maxBuffered ?? 100_000;
  }

  /** Buffers one event; never waits and never throws. */
  record(event: ActivityEvent): void {
    if (this.#stopped) return;
    if (this.#buffer.length >= this.#maxBuffered) {
      this.dropped++;
      return;
    }
    this.#buffer.push({
      projectId: event.projectId,
      id: randomUuid(),
      type: event.type,
      data: event.data,
      userId: event.userId,
      teamId: event.teamId ?? null,
      countryCode: event.countryCode ?? null,
      occurredAt: event.occurredAt ?? new Date(),
      dispatchedAt: new Date(),
    });
    this.#schedule(this.#buffer.length);
  }

  /** Buffers when and from where a session was used (a refresh); a later touch of the same session replaces it. */
  touchSession(touch: SessionTouch): void {
    if (this.#stopped) return;
    if (this.#sessionTouches.size >= this.#maxBuffered && !this.#sessionTouches.has(touch.sessionId)) {
      this.dropped++;
      return;
    }
    this.#sessionTouches.set(touch.sessionId, touch);
    this.#schedule(this.#sessionTouches.size);
  }

  /** A flush at once when `buffered` fills a batch, else the timer for a partial one. */
  #schedule(buffered: number): void {
    if (buffered >= this.#batchSize) {
      void this.flush();
    } else if (!this.#timer) {
      this.#timer = setTimeout(() => void this.flush(), this.#flushIntervalMs);
      // A buffered event never keeps the process alive: shutdown flushes through `stop`.
      this.#timer.unref();
    }
  }

  /** Events and session touches waiting for the next flush. */
  get pending(): number {
    return this.#buffer.length + this.#sessionTouches.size;
  }

  /** Writes everything buffered so far; resolves once it is in the database (tests read events after it). */
  flush(): Promise<void> {
    if (this.#timer) {
      clearTimeout(this.#timer);
      this.#timer = null;
    }
    if (this.#queued) return this.#queued;
    const next = this.#flushing.then(() => {
      this.#queued = null;
      return this.#writeBuffered();
    });
    this.#queued = next;
    this.#flushing = next;
    return next;
  }

  /** Resolves once the flushes started so far are done (without starting one, unlike `flush`). */
  whenIdle(): Promise<void> {
    return this.#flushing;
  }

  /** Flushes and stops taking events; the last step before the database closes. */
  async stop(): Promise<void> {
    await this.flush();
    this.#stopped = true;
  }

  async #writeBuffered(): Promise<void> {
    const rows = this.#buffer;
    const sessionTouches = [...this.#sessionTouches.values()];
    this.#buffer = [];
    this.#sessionTouches.clear();
    for (let start = 0; start < rows.length; start += this.#batchSize) {
      const batch = rows.slice(start, start + this.#batchSize);
      try {
        await insertActivity(this.#db, batch);
        this.written += batch.length;
      } catch {
        // Most likely one project was deleted since its events were buffered (the foreign key): write each
        // project's events on their own, so only that project's are lost.
        await this.#writePerProject(batch);
      }
      await this.#touchUsers(batch);
    }
    for (let start = 0; start < sessionTouches.length; start += this.#batchSize) {
      const batch = sessionTouches.slice(start, start + this.#batchSize);
      try {
        await touchSessions(this.#db, batch);
      } catch (error) {
        // Like the users' times: worth a line, not a retry.
        console.error(`Last-used times of ${batch.length} sessions not written:`, (error as Error).message);
      }
    }
  }

  /** A token refresh is what makes a user active (`last_active_at`): written here, so the refresh itself need not. */
  async #touchUsers(batch: readonly ActivityRow[]): Promise<void> {
    const touches = batch.flatMap((row) =>
      row.type === "$token-refresh" && row.userId
        ? [{ projectId: row.projectId, userId: row.userId, at: row.occurredAt }]
        : [],
    );
    try {
      await touchUsersActivity(this.#db, touches);
    } catch (error) {
      // A deleted user or project is simply not there to touch; anything else is worth a line, not a retry.
      console.error(
        `Last-active times of ${touches.length} refreshes not written:`,
        (error as Error).message,
      );
    }
  }

  async #writePerProject(batch: ActivityRow[]): Promise<void> {
    const byProject = new Map<string, ActivityRow[]>();
    for (const row of batch) byProject.set(row.projectId, [...(byProject.get(row.projectId) ?? []), row]);
    for (const [projectId, rows] of byProject) {
      try {
        await insertActivity(this.#db, rows);
        this.written += rows.length;
      } catch (error) {
        // Activity is not worth retrying for: a deleted project's, or the database away.
        this.dropped += rows.length;
        console.error(
          `Activity events of ${projectId}: ${rows.length} not written:`,
          (error as Error).message,
        );
      }
    }
  }
}

/**
 * What every activity event says about where it came from (PROTOCOL-EXTRA §4.2's `ip_info`, country only), for the
 * request being answered: a trusted proxy's country (http/client-geo.ts), else the address's.
 */
export function ipInfo(ip: string | null): { ip_info: { ip: string; country_code: string | null } | null } {
  return { ip_info: ip ? { ip, country_code: requestGeo()?.countryCode ?? countryOfIp(ip) } : null };
}

/** A `$token-refresh` event: one per access token minted from a refresh token. */
export function tokenRefreshEvent(input: {
  projectId: string;
  sessionId: string;
  user: { id: string; isAnonymous: boolean; selectedTeamId: string | null };
  ip: string | null;
}): ActivityEvent {
  const geo = ipInfo(input.ip);
  return {
    projectId: input.projectId,
    type: "$token-refresh",
    data: { refresh_token_id: input.sessionId, is_anonymous: input.user.isAnonymous, ...geo },
    userId: input.user.id,
    // The team the user works in at the time: what makes a team active in the metrics.
    teamId: input.user.selectedTeamId,
    countryCode: geo.ip_info?.country_code ?? null,
  };
}

/** A `$sign-in` event: a finished sign-in (second factor included), new user or not. */
export function signInEvent(input: {
  projectId: string;
  user: { id: string; isAnonymous: boolean; selectedTeamId: string | null };
  isNewUser: boolean;
  ip: string | null;
}): ActivityEvent {
  const geo = ipInfo(input.ip);
  return {
    projectId: input.projectId,
    type: "$sign-in",
    data: { is_anonymous: input.user.isAnonymous, is_new_user: input.isNewUser, ...geo },
    userId: input.user.id,
    teamId: input.user.selectedTeamId,
    countryCode: geo.ip_info?.country_code ?? null,
  };
}
