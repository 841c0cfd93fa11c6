import { eq } from "drizzle-orm";
import { vi } from "vitest";
import { sha256Hex } from "../../crypto/index.ts";
import type { TestProject, TestServer } from "../../testing/harness.ts";
import { verificationCodes } from "../verification-codes/schema.ts";

/** Patches a project's environment config override, as the dashboard does. */
export async function configureProject(
  server: TestServer,
  project: TestProject,
  override: Record<string, unknown>,
): Promise<void> {
  const response = await server.request("/api/v1/internal/config/override/environment", {
    method: "PATCH",
    headers: project.headers("admin"),
    body: { config_override_string: JSON.stringify(override) },
  });
  if (response.status !== 200) throw new Error(`config patch failed: ${response.text}`);
}

/**
 * Freezes the clock at the start of an hour, which starts a window of every rate limit (their windows divide an
 * hour), so a test that fills a window cannot straddle two. Only `Date` is faked; timers run normally.
 */
export function freezeClockAtWindowStart(): () => void {
  const hour = 3_600_000;
  vi.useFakeTimers({ toFake: ["Date"], now: Math.floor(Date.now() / hour) * hour + 1000 });
  return () => vi.useRealTimers();
}

/** Moves a code's expiry into the past, the way time would. */
export async function expireCode(server: TestServer, code: string): Promise<void> {
  await server.deps.db
    .update(verificationCodes)
    .set({ expiresAt: new Date(Date.now() - 1000) })
    .where(eq(verificationCodes.codeHash, sha256Hex(code.toLowerCase())));
}
