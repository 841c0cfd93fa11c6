/**
 * One user's latest events (recent.ts, what the AI helper reads to explain a sign-in): the right rows, newest first,
 * read through the index led by the project and the user rather than a scan of the project's events.
 */
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomUuid } from "../../crypto/index.ts";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
import { recentEventsOfUser } from "./recent.ts";
import { events } from "./schema.ts";

let server: TestServer;
let project: TestProject;
let other: TestProject;

beforeAll(async () => {
  server = await createTestServer();
  project = await server.createProject("Recent events");
  other = await server.createProject("Other project");
});
afterAll(() => server.close());

/** Writes events straight into the log, in the order given (their `seq` follows it). */
async function write(projectId: string, rows: { type: string; userId: string | null }[]) {
  if (rows.length === 0) return;
  await server.deps.db
    .insert(events)
    .values(rows.map((row) => ({ projectId, id: randomUuid(), data: {}, ...row })));
}

describe("recentEventsOfUser", () => {
  it("reads the user's events of this project only, newest first, up to the limit", async () => {
    const ada = randomUuid();
    const bob = randomUuid();
    await write(project.id, [
      { type: "user.created", userId: ada },
      { type: "user.created", userId: bob },
      { type: "$sign-in", userId: ada },
      { type: "team.created", userId: null },
      { type: "user.updated", userId: ada },
    ]);
    // The same user id in another project is someone else's.
    await write(other.id, [{ type: "$sign-in", userId: ada }]);

    const recent = await recentEventsOfUser(server.deps.db, project.id, ada);
    expect(recent.map((event) => event.type)).toEqual(["user.updated", "$sign-in", "user.created"]);
    expect(recent[0]!.occurred_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect((await recentEventsOfUser(server.deps.db, project.id, ada, 2)).map((event) => event.type)).toEqual(
      ["user.updated", "$sign-in"],
    );
    expect(await recentEventsOfUser(server.deps.db, project.id, "not-a-uuid")).toEqual([]);
  });

  it("has an index led by the project and the user, and reads the newest events from it without sorting", async () => {
    const { rows } = (await server.deps.db.execute(
      sql`select indexdef from pg_indexes where tablename = 'events' and indexname = 'events_project_user_seq_idx'`,
    )) as unknown as { rows: { indexdef: string }[] };
    expect(rows).toHaveLength(1);
    expect(rows[0]!.indexdef).toMatch(/USING btree \(project_id, user_id, seq\)$/);

    // A busy project: many users, each with a few events, and events without a user.
    const bulk = await server.createProject("Busy project");
    const userIds = Array.from({ length: 300 }, () => randomUuid());
    const rows3000 = Array.from({ length: 3000 }, (_, i) => ({
      type: i % 3 === 0 ? "$token-refresh" : "$page-view",
      userId: i % 10 === 9 ? null : userIds[i % userIds.length]!,
    }));
    for (let i = 0; i < rows3000.length; i += 500) await write(bulk.id, rows3000.slice(i, i + 500));
    await server.deps.db.execute(sql`analyze events`);

    // Sequential scans are switched off for the question asked here: which index answers the project and the user.
    const plan = await server.deps.db.transaction(async (tx) => {
      await tx.execute(sql`set local enable_seqscan = off`);
      const { rows } = (await tx.execute(
        sql`explain select type, data, occurred_at from ${events} where ${events.projectId} = ${bulk.id} and ${events.userId} = ${userIds[7]!} order by ${events.seq} desc limit 20`,
      )) as unknown as { rows: { "QUERY PLAN": string }[] };
      return rows.map((row) => row["QUERY PLAN"]).join("\n");
    });
    expect(plan).toMatch(
      /Index Scan Backward using events_project_user_seq_idx .*\s+Index Cond: \(\(project_id = '[^']+'::text\) AND \(user_id = '[^']+'::uuid\)\)/,
    );
    expect(plan).not.toContain("Sort");
  });
});
