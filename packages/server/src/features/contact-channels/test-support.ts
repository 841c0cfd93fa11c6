import type { TestProject, TestServer } from "../../testing/harness.ts";
import { setClock } from "../../testing/time.ts";

/**
 * The contact-channel and rate-limit tests' names for pieces of the shared test kit (testing/harness.ts,
 * testing/time.ts); new tests call those directly.
 */
export { expireCode } from "../../testing/time.ts";

/** Patches a project's environment config override, as the dashboard does (`project.configure`). */
export function configureProject(
  _server: TestServer,
  project: TestProject,
  override: Record<string, unknown>,
): Promise<void> {
  return project.configure(override);
}

/**
 * Freezes the clock at the start of an hour, which starts a window of every rate limit (their windows divide an
 * hour), so a test that fills a window cannot straddle two. Only `Date` is faked; timers run normally.
 */
export function freezeClockAtWindowStart(): () => void {
  const hour = 3_600_000;
  return setClock(Math.floor(Date.now() / hour) * hour + 1000);
}
