/**
 * The order in which the sandbox's workers take jobs: fair between projects, with real emails first.
 *
 * Without it, one project that queues many slow previews (a template that loops until the time limit) holds every
 * worker and everyone else waits behind all of its jobs. Here each project has its own queue, and a free worker
 * goes to the project served least recently among those with nothing running; a project gets a second worker only
 * while no other project is waiting. So another project waits for at most one render to end, however
 * many jobs the first one queued (with a single worker: for the one render running when it asked).
 *
 * Two lanes: emails being sent (the outbox's render step) are taken before previews, so an owner's editing never
 * delays another project's verification codes. Within a lane the same fairness holds.
 */

/** `send`: an email on its way to recipients; `preview`: a render for an owner's editor or a save's test render. */
export type SandboxLane = "send" | "preview";

/** Whose a render is: the project it is for, and its lane. */
export type SandboxTenant = { projectId: string; lane: SandboxLane };

/** Lanes in the order their jobs are taken. */
const LANES: readonly SandboxLane[] = ["send", "preview"];

export class FairQueue<T> {
  /** Per lane, each waiting project's jobs in arrival order. */
  private readonly waiting = new Map<SandboxLane, Map<string, T[]>>(LANES.map((lane) => [lane, new Map()]));
  /** Jobs running per lane and project, keyed `lane:projectId`. */
  private readonly running = new Map<string, number>();
  /**
   * When each active project (running or waiting) was last served, as a tick of `served`; a project absent here
   * has not been served since it last went quiet, so it comes first.
   */
  private readonly lastServed = new Map<string, number>();
  private served = 0;
  private waitingCount = 0;

  /** Jobs waiting, in every lane. */
  get size(): number {
    return this.waitingCount;
  }

  /** Jobs of `tenant` (its project in its lane) waiting. */
  waitingOf(tenant: SandboxTenant): number {
    return this.waiting.get(tenant.lane)!.get(tenant.projectId)?.length ?? 0;
  }

  push(tenant: SandboxTenant, job: T): void {
    const lane = this.waiting.get(tenant.lane)!;
    const jobs = lane.get(tenant.projectId);
    if (jobs) jobs.push(job);
    else lane.set(tenant.projectId, [job]);
    this.waitingCount++;
  }

  /**
   * The next job to run, counted as running until `done` is called with its tenant; undefined when none waits.
   * The first lane with work wins. In it, the project with the fewest jobs running (none, unless every waiting
   * project already has one: a worker is never left idle while work waits), and among those the one served least
   * recently.
   */
  take(): { tenant: SandboxTenant; job: T } | undefined {
    for (const laneName of LANES) {
      const lane = this.waiting.get(laneName)!;
      let chosen: { key: string; projectId: string; runs: number; servedAt: number } | undefined;
      for (const projectId of lane.keys()) {
        const key = `${laneName}:${projectId}`;
        const runs = this.running.get(key) ?? 0;
        const servedAt = this.lastServed.get(key) ?? -1;
        if (!chosen || runs < chosen.runs || (runs === chosen.runs && servedAt < chosen.servedAt)) {
          chosen = { key, projectId, runs, servedAt };
        }
      }
      if (!chosen) continue;
      const jobs = lane.get(chosen.projectId)!;
      const job = jobs.shift() as T;
      if (jobs.length === 0) lane.delete(chosen.projectId);
      this.waitingCount--;
      this.running.set(chosen.key, chosen.runs + 1);
      this.lastServed.set(chosen.key, ++this.served);
      return { tenant: { projectId: chosen.projectId, lane: laneName }, job };
    }
    return undefined;
  }

  /** A job taken for `tenant` has ended. */
  done(tenant: SandboxTenant): void {
    const key = `${tenant.lane}:${tenant.projectId}`;
    const runs = (this.running.get(key) ?? 0) - 1;
    if (runs > 0) {
      this.running.set(key, runs);
      return;
    }
    this.running.delete(key);
    // A project with nothing running or waiting is forgotten, so that the maps hold only active projects.
    if (!this.waiting.get(tenant.lane)!.has(tenant.projectId)) this.lastServed.delete(key);
  }
}
