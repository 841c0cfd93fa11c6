import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appsFor } from "../testing/apps.ts";
import { type RunningGatehouse, startGatehouse } from "../testing/gatehouse-server.ts";

let gh: RunningGatehouse;
let apps: ReturnType<typeof appsFor>;
let projectId: string;
let clientHeaders: (extra: Record<string, string>) => Record<string, string>;

beforeAll(async () => {
  gh = await startGatehouse();
  const project = await gh.createProject("Metrics SDK");
  projectId = project.id;
  clientHeaders = (extra) => project.headers("client", extra);
  apps = appsFor(gh, project);
});
afterAll(() => gh?.close());

describe("AdminApp.getMetrics", () => {
  it("reads the metrics, counting anonymous users only when asked", async () => {
    await gh.createUser(projectId, { primaryEmail: "metrics-sdk@example.com", primaryEmailVerified: true });
    await gh.createUser(projectId, { isAnonymous: true });
    // A refresh, so that today has an active user.
    const { refreshToken } = await gh.createUser(projectId, {});
    const refreshed = await fetch(`${gh.baseUrl}/api/v1/auth/sessions/current/refresh`, {
      method: "POST",
      headers: clientHeaders({ "x-stack-refresh-token": refreshToken }),
    });
    expect(refreshed.status).toBe(200);
    await gh.gatehouse.deps.activity.flush();

    const admin = apps.admin();
    const metrics = await admin.getMetrics();
    expect(metrics.total_users).toBe(2);
    expect(metrics.auth_overview).toMatchObject({ verified_users: 1, anonymous_users: 1, mau: 1 });
    expect(metrics.daily_users).toHaveLength(31);
    expect(metrics.daily_active_users.at(-1)?.activity).toBe(1);
    expect(metrics.recently_registered.map((user) => user.primary_email)).toContain(
      "metrics-sdk@example.com",
    );

    const withAnonymous = await admin.getMetrics({ includeAnonymous: true });
    expect(withAnonymous.total_users).toBe(3);
  });

  it("is an admin call", async () => {
    // The server app has no getMetrics: metrics need the admin key or an owner's session.
    expect("getMetrics" in apps.server()).toBe(false);
  });
});
