/**
 * Fairness on the real worker threads: project A floods the sandbox with renders that loop until the time limit,
 * then project B asks for one ordinary render. B's render is done while most of A's are still to come. (In one
 * shared line B's would come last: behind all six of A's.) Orders only, no clocks: each of A's renders ends at its
 * deadline, B's ends as soon as it is rendered.
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
});
