import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appsFor, uniqueEmail } from "../testing/apps.ts";
import { type RunningGatehouse, startGatehouse } from "../testing/gatehouse-server.ts";

let gh: RunningGatehouse;
let apps: ReturnType<typeof appsFor>;

beforeAll(async () => {
  gh = await startGatehouse();
  const project = await gh.createProject("Admin user filters");
  apps = appsFor(gh, project);
});
afterAll(() => gh?.close());

describe("AdminApp.filterUsers", () => {
  it("filters by email verification, restriction, sign-in method and anonymity, and counts the filter", async () => {
    const admin = apps.admin();
    const verified = await admin.createUser({
      primaryEmail: uniqueEmail("verified"),
      primaryEmailVerified: true,
      password: "correct horse battery",
    });
    const unverified = await admin.createUser({ primaryEmail: uniqueEmail("unverified") });
    const restricted = await admin.createUser({ displayName: "Restricted" });
    await restricted.update({ restrictedByAdmin: true });
    const anonymous = await admin.createUser({ isAnonymous: true });

    const ids = (users: { id: string }[]) => users.map((user) => user.id).sort();

    const everyone = await admin.filterUsers({
      includeRestricted: true,
      anonymous: "include",
      includeTotal: true,
    });
    expect(everyone.totalCount).toBe(4);
    expect(ids(everyone)).toEqual(ids([verified, unverified, restricted, anonymous]));

    const firstPage = await admin.filterUsers({ includeRestricted: true, limit: 1, includeTotal: true });
    expect(firstPage).toHaveLength(1);
    expect(firstPage.totalCount).toBe(3);
    expect(firstPage.nextCursor).toEqual(expect.any(String));
    expect((await admin.filterUsers({ limit: 1 })).totalCount).toBeNull();

    expect(ids(await admin.filterUsers({ primaryEmailVerified: true }))).toEqual([verified.id]);
    expect(ids(await admin.filterUsers({ includeRestricted: true, restrictedByAdmin: true }))).toEqual([
      restricted.id,
    ]);
    expect(ids(await admin.filterUsers({ authMethod: "password" }))).toEqual([verified.id]);
    expect(ids(await admin.filterUsers({ anonymous: "only" }))).toEqual([anonymous.id]);

    const byActivity = await admin.filterUsers({
      includeRestricted: true,
      orderBy: "lastActiveAt",
      desc: false,
    });
    expect(byActivity[0]!.lastActiveAt.getTime()).toBeLessThanOrEqual(
      byActivity.at(-1)!.lastActiveAt.getTime(),
    );
  });

  it("is an admin call", () => {
    expect("filterUsers" in apps.server()).toBe(false);
  });
});
