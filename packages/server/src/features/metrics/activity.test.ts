import { readFileSync } from "node:fs";
import { join } from "node:path";
import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultRenderedConfig } from "../../config/schema.ts";
import { randomUuid } from "../../crypto/index.ts";
import { migrationsFolder } from "../../db/handle.ts";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
import { activityCountDrift, activityDayDrift, repairActivityDays } from "../events/activity-days.ts";
import {
  activityCountryCounts,
  activityDayCounts,
  activityDays,
  activityNewCounts,
  events,
} from "../events/schema.ts";
import { teams } from "../teams/schema.ts";
import { users } from "../users/schema.ts";
import { loadMetrics } from "./routes.ts";
import { dayKey, metricsWindow } from "./window.ts";

/**
 * The activity figures come from the `activity_days` rollup (events/activity-days.ts); here they are checked against
 * the same figures worked out in this file from the `$token-refresh` events themselves, for a project whose events
 * go through the real activity writer in time order, in batches that cross midnight: users who turn from anonymous
 * to known, move country or have none, work in teams or not, with gaps between active days. Then a rollup made to
 * drift (out-of-order flushes, rows edited by hand, and so counts that no longer add up the rows) is put right by
 * the repair.
 */

const DAY = 24 * 3600 * 1000;
const TODAY = Date.UTC(2031, 2, 20);
const NOW = TODAY + 15 * 3600 * 1000;
const COUNTRIES = ["GB", "DE", "US", null];

let server: TestServer;
let project: TestProject;
const userIds: string[] = [];
const teamIds: string[] = [];

/** A small deterministic generator (mulberry32), so that a failure can be replayed. */
function generator(seed: number) {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

beforeAll(async () => {
  server = await createTestServer();
  project = await server.createProject("Activity rollup");
  const random = generator(38);
  // Users and teams created from 45 days ago to today: some inside the window (new when first active), some before.
  for (let index = 0; index < 14; index++) {
    const id = randomUuid();
    userIds.push(id);
    await server.deps.db.insert(users).values({
      projectId: project.id,
      id,
      isAnonymous: index % 5 === 0,
      signedUpAt: new Date(TODAY - Math.floor(random() * 45) * DAY),
    });
  }
  for (let index = 0; index < 3; index++) {
    const id = randomUuid();
    teamIds.push(id);
    await server.deps.db.insert(teams).values({
      projectId: project.id,
      id,
      displayName: `Team ${index}`,
      createdAt: new Date(TODAY - index * 20 * DAY),
    });
  }
  // 400 refreshes over the last 40 days in time order, flushed every 1 to 40 events, so batches cross midnight.
  const times = Array.from({ length: 400 }, () => NOW - Math.floor(random() * 40 * DAY)).sort(
    (a, b) => a - b,
  );
  let sinceFlush = 0;
  let flushAfter = 1;
  for (const at of times) {
    const user = Math.floor(random() * userIds.length);
    const team = random() < 0.6 ? teamIds[user % teamIds.length]! : null;
    server.deps.activity.record({
      projectId: project.id,
      type: "$token-refresh",
      // Some users were anonymous on some refreshes only: upgraded, as far as the events tell.
      data: { is_anonymous: user % 5 === 0 || (user % 4 === 0 && random() < 0.5) },
      userId: userIds[user]!,
      teamId: team,
      countryCode: COUNTRIES[Math.floor(random() * COUNTRIES.length)]!,
      occurredAt: new Date(at),
    });
    if (++sinceFlush >= flushAfter) {
      await server.deps.activity.flush();
      sinceFlush = 0;
      flushAfter = 1 + Math.floor(random() * 40);
    }
  }
  await server.deps.activity.flush();
});
afterAll(() => server.close());

type Refresh = {
  userId: string;
  teamId: string | null;
  countryCode: string | null;
  occurredAt: Date;
  known: boolean;
};

/** The activity figures, worked out from the events one by one as PROTOCOL-EXTRA §4.1 and activity.ts define them. */
async function figuresFromEvents(includeAnonymous: boolean) {
  const window = metricsWindow(new Date(NOW));
  const rows = await server.deps.db
    .select()
    .from(events)
    .where(and(eq(events.projectId, project.id), eq(events.type, "$token-refresh")));
  const refreshes: Refresh[] = rows
    .map((row) => ({
      userId: row.userId!,
      teamId: row.teamId,
      countryCode: row.countryCode,
      occurredAt: row.occurredAt,
      known: (row.data as { is_anonymous?: boolean }).is_anonymous !== true,
    }))
    .filter((row) => row.occurredAt >= window.dayBeforeStart && (includeAnonymous || row.known));
  const created = new Map<string, Date>();
  for (const user of await server.deps.db.select().from(users).where(eq(users.projectId, project.id)))
    created.set(user.id, user.signedUpAt);
  for (const team of await server.deps.db.select().from(teams).where(eq(teams.projectId, project.id)))
    created.set(team.id, team.createdAt);

  const split = (subjectOf: (refresh: Refresh) => string | null) => {
    const daysOf = new Map<string, Set<string>>();
    for (const refresh of refreshes) {
      const subject = subjectOf(refresh);
      if (!subject) continue;
      daysOf.set(subject, (daysOf.get(subject) ?? new Set()).add(dayKey(refresh.occurredAt)));
    }
    const point = (count: (day: string, days: string[]) => boolean) =>
      window.days.map((date) => ({
        date,
        activity: [...daysOf.values()].filter((days) => days.has(date) && count(date, [...days])).length,
      }));
    const dayBefore = (date: string) => dayKey(new Date(Date.parse(date) - DAY));
    const newOn = (date: string) =>
      [...daysOf.entries()].filter(
        ([subject, days]) =>
          days.has(date) &&
          [...days].every((day) => day >= date) &&
          (created.get(subject) ?? new Date(0)) >= window.dayBeforeStart,
      ).length;
    const total = point(() => true);
    const retained = point((date, days) => days.includes(dayBefore(date)));
    const fresh = window.days.map((date) => ({ date, activity: newOn(date) }));
    return {
      split: {
        total,
        new: fresh,
        retained,
        reactivated: total.map((point, index) => ({
          date: point.date,
          activity: point.activity - retained[index]!.activity - fresh[index]!.activity,
        })),
      },
      distinct: [...daysOf.values()].filter((days) => [...days].some((day) => day >= window.days[0]!)).length,
    };
  };
  const byUser = split((refresh) => refresh.userId);
  const latest = new Map<string, Refresh>();
  for (const refresh of refreshes) {
    if (refresh.occurredAt < window.start || refresh.countryCode === null) continue;
    const seen = latest.get(refresh.userId);
    if (!seen || seen.occurredAt < refresh.occurredAt) latest.set(refresh.userId, refresh);
  }
  const byCountry: Record<string, number> = {};
  for (const { countryCode } of latest.values()) byCountry[countryCode!] = (byCountry[countryCode!] ?? 0) + 1;
  return {
    daily_active_users: byUser.split.total,
    mau: byUser.distinct,
    users_by_country: byCountry,
    daily_active_users_split: byUser.split,
    daily_active_teams_split: split((refresh) => refresh.teamId).split,
  };
}

async function figuresFromRollup(includeAnonymous: boolean) {
  const body = await loadMetrics(
    server.deps.db,
    project.id,
    defaultRenderedConfig(),
    includeAnonymous,
    new Date(NOW),
  );
  return {
    daily_active_users: body.daily_active_users,
    mau: body.auth_overview.mau,
    users_by_country: body.users_by_country,
    daily_active_users_split: body.auth_overview.daily_active_users_split,
    daily_active_teams_split: body.auth_overview.daily_active_teams_split,
  };
}

async function expectFiguresOfTheEvents() {
  for (const includeAnonymous of [false, true]) {
    const expected = await figuresFromEvents(includeAnonymous);
    // A figure that is zero everywhere would compare equal for the wrong reason.
    expect(expected.mau).toBeGreaterThan(3);
    expect(expected.daily_active_users_split.retained.some((point) => point.activity > 0)).toBe(true);
    expect(expected.daily_active_users_split.new.some((point) => point.activity > 0)).toBe(true);
    expect(await figuresFromRollup(includeAnonymous)).toEqual(expected);
  }
}

describe("the activity figures from the rollup", () => {
  it("equal what the events say, with and without anonymous users", async () => {
    await expectFiguresOfTheEvents();
    expect(await activityDayDrift(server.deps.db, project.id, new Date(NOW))).toEqual([]);
    expect(await activityCountDrift(server.deps.db, project.id, new Date(NOW))).toBe(0);
  });

  it("are put right by the repair when the rollup drifted", async () => {
    const windowDay = dayKey(new Date(TODAY - 3 * DAY));
    const [someRow] = await server.deps.db
      .select()
      .from(activityDays)
      .where(and(eq(activityDays.projectId, project.id), eq(activityDays.kind, 0)))
      .orderBy(activityDays.day)
      .limit(1)
      .offset(5);
    // A row lost, a row no event supports, a country and a previous day changed by hand.
    await server.deps.db
      .delete(activityDays)
      .where(and(eq(activityDays.projectId, project.id), eq(activityDays.day, windowDay)));
    await server.deps.db.insert(activityDays).values({
      projectId: project.id,
      kind: 0,
      day: dayKey(new Date(TODAY - 2 * DAY)),
      subject: randomUuid(),
      known: true,
      country: "FR",
    });
    await server.deps.db
      .update(activityDays)
      .set({ country: "JP", knownCountry: "JP", previousDay: null, knownPreviousDay: null })
      .where(
        and(
          eq(activityDays.projectId, project.id),
          eq(activityDays.subject, someRow!.subject),
          eq(activityDays.kind, 0),
          sql`${activityDays.day} >= ${dayKey(new Date(TODAY - 20 * DAY))}::date`,
        ),
      );
    // Two flushes out of order, as two instances around midnight may write them: the later day first.
    const user = userIds[1]!;
    const refresh = (at: number) => ({
      projectId: project.id,
      type: "$token-refresh" as const,
      data: { is_anonymous: false },
      userId: user,
      countryCode: "GB",
      occurredAt: new Date(at),
    });
    server.deps.activity.record(refresh(NOW + 2 * DAY));
    await server.deps.activity.flush();
    server.deps.activity.record(refresh(NOW + DAY));
    await server.deps.activity.flush();

    const drift = await activityDayDrift(server.deps.db, project.id, new Date(NOW));
    expect(drift.length).toBeGreaterThan(2);
    // The rows edited by hand went past the counts too.
    expect(await activityCountDrift(server.deps.db, project.id, new Date(NOW))).toBeGreaterThan(0);
    expect(drift).toContainEqual({
      kind: 0,
      day: dayKey(new Date(TODAY + 2 * DAY)),
      subject: user,
      expected: true,
    });
    expect(await repairActivityDays(server.deps.db, project.id, new Date(NOW))).toBeGreaterThan(drift.length);
    expect(await activityDayDrift(server.deps.db, project.id, new Date(NOW))).toEqual([]);
    expect(await activityCountDrift(server.deps.db, project.id, new Date(NOW))).toBe(0);
    await expectFiguresOfTheEvents();
    // Nothing left to correct, in this project or any (the hourly worker's call).
    expect(await repairActivityDays(server.deps.db, null, new Date(NOW))).toBe(0);
  });

  it("are what the migrations' backfills build from the events", async () => {
    // The hand-written INSERTs and UPDATE of migration 0018, run again on emptied tables: they read events since
    // the real clock's 32 days ago, which takes in all of this file's (in 2031).
    const backfills = readFileSync(join(migrationsFolder, "0018_activity_rollup.sql"), "utf8")
      .split("--> statement-breakpoint")
      .filter((statement) => /^\s*(INSERT INTO|UPDATE) "activity/m.test(statement));
    expect(backfills).toHaveLength(5);
    for (const table of [activityCountryCounts, activityNewCounts, activityDayCounts, activityDays])
      await server.deps.db.delete(table);
    for (const statement of backfills) await server.deps.db.execute(sql.raw(statement));
    await expectFiguresOfTheEvents();
    expect(await activityDayDrift(server.deps.db, project.id, new Date(NOW))).toEqual([]);
    expect(await activityCountDrift(server.deps.db, project.id, new Date(NOW))).toBe(0);
  });
});
