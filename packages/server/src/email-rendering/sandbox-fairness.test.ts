/**
 * Fairness on the real worker threads: project A floods the sandbox with renders that loop until the time limit,
 * then project B asks for one ordinary render. B's render is done while most of A's are still to come. (In one
 * shared line B's would come last: behind all six of A's.) Orders only, no clocks: each of A's renders ends at its
 * deadline, B's ends as soon as it is rendered. And a project that queues faster than the sandbox renders has its
 * previews refused past 16 waiting, rather than holding their bundles in memory.
 */
import { describe, expect, it } from "vitest";
import { NO_THEME_SOURCE } from "./built-in-themes.ts";
import { compileEmail } from "./compile.ts";
import { runBatchInSandbox, type SandboxLimits } from "./sandbox.ts";

const LIMITS: SandboxLimits = { timeMs: 1_000, memoryBytes: 32 * 1024 * 1024 };
const INPUT = JSON.stringify({ variables: {}, user: { displayName: null }, project: { displayName: "P" } });

describe("the sandbox under one project's flood", () => {
  it("renders another project's preview before the flooding project's queued renders", async () => {
    const looping = await compileEmail({
      template: "export function EmailTemplate() { while (true) {} }",
      theme: NO_THEME_SOURCE,
    });
    const plain = await compileEmail({
      template: "export function EmailTemplate() { return <p>Preview of B</p>; }",
      theme: NO_THEME_SOURCE,
    });
    const finished: string[] = [];
    const run = (projectId: string, name: string, code: string) =>
      runBatchInSandbox({ projectId, lane: "preview" }, code, [INPUT], LIMITS).then(([outcome]) => {
        finished.push(name);
        return outcome!;
      });

    // All of A's jobs are queued before B asks: the queue, not the order of asking, decides.
    const flood = Array.from({ length: 6 }, (_, index) => run("project-a", `a${index + 1}`, looping.code));
    const preview = run("project-b", "b", plain.code);

    const outcome = await preview;
    expect(outcome).toMatchObject({ ok: true });
    expect((outcome as { value: string }).value).toContain("Preview of B");
    const floodOutcomes = await Promise.all(flood);
    expect(floodOutcomes.every((result) => !result.ok && result.kind === "timeout")).toBe(true);

    // B waited for one of A's renders at most: at least three of A's six ended after B's.
    const afterB = finished.slice(finished.indexOf("b") + 1);
    expect(afterB.length, finished.join(" ")).toBeGreaterThanOrEqual(3);
    expect(finished.filter((name) => name.startsWith("a"))).toHaveLength(6);
  }, 60_000);

  it("refuses a project's previews at once past 16 waiting, but not another project's nor real emails", async () => {
    const looping = await compileEmail({
      template: "export function EmailTemplate() { while (true) {} }",
      theme: NO_THEME_SOURCE,
    });
    const short: SandboxLimits = { timeMs: 200, memoryBytes: LIMITS.memoryBytes };
    const run = (projectId: string, lane: "preview" | "send") =>
      runBatchInSandbox({ projectId, lane }, looping.code, [INPUT], short).then(([outcome]) => outcome!);
    // Asked for in one go: at most two start (one per worker), the rest wait, up to 16 of them.
    const flood = Array.from({ length: 20 }, () => run("project-c", "preview"));
    const otherProject = run("project-d", "preview");
    const sends = Array.from({ length: 3 }, () => run("project-c", "send"));
    const outcomes = await Promise.all(flood);
    const firstBusy = outcomes.findIndex((outcome) => !outcome.ok && outcome.kind === "busy");
    // 16 waiting plus the one or two running (one worker on a single-core machine).
    expect([17, 18]).toContain(firstBusy);
    expect(outcomes.slice(firstBusy).every((outcome) => !outcome.ok && outcome.kind === "busy")).toBe(true);
    expect(outcomes.slice(0, firstBusy).every((outcome) => !outcome.ok && outcome.kind === "timeout")).toBe(
      true,
    );
    expect(outcomes[firstBusy]).toMatchObject({
      message:
        "16 previews of this project are already waiting for the sandbox; try again when they are done.",
    });
    expect(await otherProject).toMatchObject({ ok: false, kind: "timeout" });
    for (const outcome of await Promise.all(sends))
      expect(outcome).toMatchObject({ ok: false, kind: "timeout" });
  }, 120_000);
});
