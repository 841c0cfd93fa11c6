/**
 * The sandbox's job order (sandbox-queue.ts), driven step by step: which job a free worker takes next. The real
 * workers are in sandbox-fairness.test.ts.
 */
import { describe, expect, it } from "vitest";
import { FairQueue, type SandboxLane, type SandboxTenant } from "./sandbox-queue.ts";

const preview = (projectId: string): SandboxTenant => ({ projectId, lane: "preview" });
const send = (projectId: string): SandboxTenant => ({ projectId, lane: "send" });

/** A queue whose jobs are their names; `take` answers the name of the job a free worker gets. */
function namedQueue() {
  const queue = new FairQueue<string>();
  const tenants = new Map<string, SandboxTenant>();
  return {
    queue,
    push(tenant: SandboxTenant, ...names: string[]) {
      for (const name of names) {
        tenants.set(name, tenant);
        queue.push(tenant, name);
      }
    },
    take(): string | undefined {
      return queue.take()?.job;
    },
    finish(name: string) {
      queue.done(tenants.get(name)!);
    },
  };
}

describe("the sandbox's fair queue", () => {
  it("gives a newly arrived project the next free worker, ahead of a flooding project's queued jobs", () => {
    const q = namedQueue();
    q.push(preview("a"), "a1", "a2", "a3", "a4", "a5", "a6");
    // Two workers, nobody else waiting: project A may use both.
    expect([q.take(), q.take()]).toEqual(["a1", "a2"]);
    q.push(preview("b"), "b1");
    q.finish("a1");
    expect(q.take()).toBe("b1");
    q.finish("a2");
    expect(q.take()).toBe("a3");
    expect(q.queue.size).toBe(3);
  });

  it("with a single worker, serves the project that waited over the one just served", () => {
    const q = namedQueue();
    q.push(preview("a"), "a1");
    expect(q.take()).toBe("a1");
    q.push(preview("a"), "a2", "a3");
    q.push(preview("b"), "b1", "b2");
    q.finish("a1");
    expect(q.take()).toBe("b1");
    q.finish("b1");
    expect(q.take()).toBe("a2");
    q.finish("a2");
    expect(q.take()).toBe("b2");
    q.finish("b2");
    expect(q.take()).toBe("a3");
    expect(q.take()).toBeUndefined();
  });

  it("takes turns between several flooding projects, one job each", () => {
    const q = namedQueue();
    q.push(preview("a"), "a1", "a2", "a3");
    q.push(preview("b"), "b1", "b2", "b3");
    q.push(preview("c"), "c1", "c2", "c3");
    const order: string[] = [];
    for (let job = q.take(); job; job = q.take()) {
      order.push(job);
      q.finish(job);
    }
    expect(order).toEqual(["a1", "b1", "c1", "a2", "b2", "c2", "a3", "b3", "c3"]);
  });

  it("keeps a project to one worker while another project waits", () => {
    const q = namedQueue();
    q.push(preview("a"), "a1", "a2");
    q.push(preview("b"), "b1", "b2");
    expect([q.take(), q.take()]).toEqual(["a1", "b1"]);
    q.finish("b1");
    // A has a job running and B none: B's next job goes first although A's waited longer.
    expect(q.take()).toBe("b2");
    q.finish("b2");
    expect(q.take()).toBe("a2");
  });

  it("takes emails being sent before any preview, fairly between projects too", () => {
    const q = namedQueue();
    q.push(preview("a"), "preview-a1", "preview-a2");
    q.push(send("b"), "send-b1", "send-b2");
    q.push(send("c"), "send-c1");
    const order: string[] = [];
    for (let job = q.take(); job; job = q.take()) {
      order.push(job);
      q.finish(job);
    }
    expect(order).toEqual(["send-b1", "send-c1", "send-b2", "preview-a1", "preview-a2"]);
  });

  it("counts a project's lanes apart: a running send does not hold its previews back", () => {
    const q = namedQueue();
    q.push(send("a"), "send-a1");
    expect(q.take()).toBe("send-a1");
    q.push(preview("b"), "preview-b1");
    q.push(preview("a"), "preview-a1");
    expect(q.take()).toBe("preview-b1");
    expect(q.take()).toBe("preview-a1");
  });

  it("forgets a project once it has nothing running or waiting", () => {
    const q = namedQueue();
    for (const lane of ["send", "preview"] as SandboxLane[]) {
      q.push({ projectId: "a", lane }, `${lane}-a1`);
      expect(q.take()).toBe(`${lane}-a1`);
      q.finish(`${lane}-a1`);
    }
    const internals = q.queue as unknown as { running: Map<string, number>; lastServed: Map<string, number> };
    expect(internals.running.size).toBe(0);
    expect(internals.lastServed.size).toBe(0);
    expect(q.queue.size).toBe(0);
  });
});
