/**
 * Runs compiled email scripts in QuickJS on worker threads (sandbox-worker.mjs): the event loop stays free for
 * other requests while a render runs, and the interpreter bounds each render's time and memory.
 *
 * A small pool: at most `MAX_WORKERS` threads, each running one job at a time, the rest queued per project and lane
 * (sandbox-queue.ts: real emails first, then fair between projects). If a worker does not answer within the
 * deadline plus a grace period (the interrupt handler failed to stop it), it is terminated and replaced, and its
 * job fails as a timeout.
 */
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { SERVER_PACKAGE_ROOT } from "../package-root.ts";
import { FairQueue, type SandboxTenant } from "./sandbox-queue.ts";

export type SandboxLimits = { timeMs: number; memoryBytes: number };

/**
 * Wall-clock time (the interpreter's interrupt handler sees no CPU time) and heap. A template with `<Tailwind>`
 * takes a few seconds in QuickJS on an idle machine, so the time limit leaves room for a busy one.
 */
export const DEFAULT_SANDBOX_LIMITS: SandboxLimits = { timeMs: 15_000, memoryBytes: 128 * 1024 * 1024 };

export type SandboxOutcome =
  | { ok: true; value: string }
  | { ok: false; kind: "timeout" | "memory" | "busy" | "error"; message: string; stack?: string };

/** Where the worker's file is, from the package root so that the bundled server finds it too. */
const WORKER_FILE = join(SERVER_PACKAGE_ROOT, "src/email-rendering/sandbox-worker.mjs");
const MAX_WORKERS = Math.max(1, Math.min(2, availableParallelism()));
/**
 * Previews one project may have waiting (the ones running aside). Each waiting job holds its compiled bundle (half
 * a megabyte, more with Tailwind), so a project that queues faster than the sandbox renders is refused at once
 * past this instead of filling the memory; an editor has one or two waiting at most. Real emails are never refused:
 * the outbox hands them over at its own pace.
 */
const MAX_WAITING_PREVIEWS_PER_PROJECT = 16;

/** Time a worker gets beyond the deadline before it is presumed stuck (starting the interpreter counts too). */
const WATCHDOG_GRACE_MS = 5_000;

type Job = {
  id: number;
  tenant: SandboxTenant;
  code: string;
  inputs: string[];
  limits: SandboxLimits;
  resolve: (outcomes: SandboxOutcome[]) => void;
};

type PoolWorker = { worker: Worker; job: Job | null; watchdog: NodeJS.Timeout | null };

const workers: PoolWorker[] = [];
const queue = new FairQueue<Job>();
let nextJobId = 1;

function startWorker(): PoolWorker {
  const entry: PoolWorker = { worker: new Worker(WORKER_FILE), job: null, watchdog: null };
  entry.worker.on("message", (message: { id?: number; outcomes?: SandboxOutcome[] }) => {
    if (message.id === undefined || entry.job?.id !== message.id || !message.outcomes) return;
    finish(entry, message.outcomes);
  });
  const fail = (reason: string) => {
    retire(entry);
    if (entry.job) finish(entry, failAll(entry.job, { ok: false, kind: "error", message: reason }));
  };
  entry.worker.on("error", (error) => fail(`The sandbox failed: ${error.message}`));
  entry.worker.on("exit", () => fail("The sandbox stopped unexpectedly."));
  // An idle worker must not keep the process alive; a busy one is referenced while it works (see dispatch).
  entry.worker.unref();
  workers.push(entry);
  return entry;
}

function retire(entry: PoolWorker) {
  const index = workers.indexOf(entry);
  if (index >= 0) workers.splice(index, 1);
}

function failAll(job: Job, outcome: SandboxOutcome): SandboxOutcome[] {
  return job.inputs.map(() => outcome);
}

function finish(entry: PoolWorker, outcomes: SandboxOutcome[]) {
  const job = entry.job;
  if (!job) return;
  if (entry.watchdog) clearTimeout(entry.watchdog);
  entry.job = null;
  entry.watchdog = null;
  entry.worker.unref();
  queue.done(job.tenant);
  job.resolve(outcomes);
  // A retired worker is out of `workers`, so the queue moves on to the others or to a new one.
  dispatch();
}

function dispatch() {
  while (queue.size > 0) {
    const idle = workers.find((entry) => entry.job === null);
    const entry = idle ?? (workers.length < MAX_WORKERS ? startWorker() : undefined);
    if (!entry) return;
    const { job } = queue.take()!;
    entry.job = job;
    entry.worker.ref();
    entry.watchdog = setTimeout(
      () => {
        // The interpreter did not stop itself: end the thread; the next job gets a new one.
        retire(entry);
        void entry.worker.terminate();
        finish(
          entry,
          failAll(job, {
            ok: false,
            kind: "timeout",
            message: `The render took longer than ${job.limits.timeMs} ms and was stopped.`,
          }),
        );
        // Each input has its own deadline inside the worker; the watchdog allows for all of them.
      },
      job.limits.timeMs * job.inputs.length + WATCHDOG_GRACE_MS,
    );
    entry.worker.postMessage({ id: job.id, code: job.code, inputs: job.inputs, limits: job.limits });
  }
}

/**
 * Runs `code` once and calls it with each input, in order, in one interpreter (each call has the time limit of its
 * own); one outcome per input. For one project's email to many recipients: the same owner's code, so sharing an
 * interpreter between the renders exposes nothing that is not the owner's already. The job waits in `tenant`'s
 * queue (sandbox-queue.ts).
 */
export function runBatchInSandbox(
  tenant: SandboxTenant,
  code: string,
  inputs: string[],
  limits: SandboxLimits = DEFAULT_SANDBOX_LIMITS,
): Promise<SandboxOutcome[]> {
  if (inputs.length === 0) return Promise.resolve([]);
  if (tenant.lane === "preview" && queue.waitingOf(tenant) >= MAX_WAITING_PREVIEWS_PER_PROJECT) {
    const message = `${MAX_WAITING_PREVIEWS_PER_PROJECT} previews of this project are already waiting for the sandbox; try again when they are done.`;
    return Promise.resolve(inputs.map(() => ({ ok: false, kind: "busy", message })));
  }
  return new Promise((resolve) => {
    queue.push(tenant, { id: nextJobId++, tenant, code, inputs, limits, resolve });
    dispatch();
  });
}
