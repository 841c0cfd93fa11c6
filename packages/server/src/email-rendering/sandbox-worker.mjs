// The sandbox's worker thread. Plain JavaScript (not TypeScript) because a worker thread loads its file directly,
// whether the server runs from its sources or from the bundle; sandbox.ts starts it from this path.
//
// Each job (one email for one or more recipients of one project) gets a fresh QuickJS runtime: a WebAssembly interpreter with no access to the network, the file system
// or the process (only the globals defined in PRELUDE below exist), a memory limit, a stack limit and a deadline
// checked by the interpreter's interrupt handler. The thread keeps the server's event loop free while a render runs.
import { parentPort } from "node:worker_threads";
import variant from "@jitl/quickjs-wasmfile-release-sync";
import { newQuickJSWASMModuleFromVariant } from "quickjs-emscripten-core";
import { PRELUDE } from "./sandbox-prelude.mjs";

/** Retries after a suspension (see sandbox-driver.ts); more than a handful means something suspends forever. */
const MAX_ATTEMPTS = 20;

const quickJs = await newQuickJSWASMModuleFromVariant(variant);
let moduleBroken = false;

function describe(context, handle) {
  const error = context.dump(handle);
  if (error && typeof error === "object") {
    const name = typeof error.name === "string" ? error.name : "Error";
    const message = typeof error.message === "string" ? error.message : JSON.stringify(error);
    const stack = typeof error.stack === "string" ? error.stack.slice(0, 4000) : undefined;
    return { name, message, stack };
  }
  return { name: "Error", message: String(error) };
}

function classify(described, limits, deadline) {
  const text = `${described.name}: ${described.message}`;
  // Memory first: running out of it near the deadline is still a memory problem.
  if (/out of memory/i.test(described.message)) {
    const megabytes = Math.round(limits.memoryBytes / (1024 * 1024));
    return {
      kind: "memory",
      message: `The render used more than ${megabytes} MB of memory and was stopped.`,
    };
  }
  if (/interrupted/i.test(described.message) || Date.now() > deadline) {
    return { kind: "timeout", message: `The render took longer than ${limits.timeMs} ms and was stopped.` };
  }
  if (/stack overflow/i.test(described.message)) {
    return { kind: "error", message: `${text} (too much recursion)` };
  }
  // The stack lets the host point at the owner's line (render.ts maps it through the bundle's source map).
  return { kind: "error", message: text, stack: described.stack };
}

/**
 * A fresh runtime with the prelude and the job's code loaded, or the failure that stopped the load. The deadline
 * is read by the interrupt handler on every check, so each render of a batch gets its own.
 */
function openRuntime(job, clock) {
  const runtime = quickJs.newRuntime();
  runtime.setMemoryLimit(job.limits.memoryBytes);
  runtime.setMaxStackSize(1024 * 1024);
  runtime.setInterruptHandler(() => Date.now() > clock.deadline);
  const context = runtime.newContext();
  const opened = { runtime, context };
  for (const [code, file] of [
    [PRELUDE, "prelude.js"],
    [job.code, "email.js"],
  ]) {
    const loaded = context.evalCode(code, file);
    if (loaded.error) {
      const failure = classify(describe(context, loaded.error), job.limits, clock.deadline);
      loaded.error.dispose();
      return { ...opened, failure: { ok: false, ...failure } };
    }
    loaded.value.dispose();
  }
  return opened;
}

function closeRuntime({ runtime, context }) {
  try {
    context.dispose();
    runtime.dispose();
  } catch {
    // A runtime stopped mid-allocation may refuse a clean dispose, and the module may then be unusable: answer
    // this job, then end the thread so that the pool starts a fresh one.
    moduleBroken = true;
  }
}

function renderOne({ runtime, context }, job, input, clock) {
  const call = `globalThis.__gatehouseRender(${JSON.stringify(input)})`;
  for (let attempt = 1; ; attempt++) {
    const result = context.evalCode(call, "render.js");
    if (!result.error) {
      const value = context.typeof(result.value) === "string" ? context.getString(result.value) : null;
      result.value.dispose();
      if (value === null) return { ok: false, kind: "error", message: "The render returned no result." };
      return { ok: true, value };
    }
    const described = describe(context, result.error);
    result.error.dispose();
    // A suspended component leaves promise jobs behind; run them and try again.
    if (attempt < MAX_ATTEMPTS && runtime.hasPendingJob()) {
      const jobs = runtime.executePendingJobs(-1);
      if (jobs.error) {
        const failure = classify(
          describe(jobs.error.context ?? context, jobs.error),
          job.limits,
          clock.deadline,
        );
        jobs.error.dispose();
        return { ok: false, ...failure };
      }
      continue;
    }
    return { ok: false, ...classify(described, job.limits, clock.deadline) };
  }
}

/**
 * Renders every input of the job (one project's email, one recipient each). The code is loaded once per batch:
 * loading React and React Email into the interpreter is most of a single render's cost. A render stopped by a
 * limit may leave the runtime in any state, so the next input gets a fresh one.
 */
function runJob(job) {
  const clock = { deadline: Date.now() + job.limits.timeMs };
  const outcomes = [];
  let open = null;
  try {
    for (const input of job.inputs) {
      clock.deadline = Date.now() + job.limits.timeMs;
      if (!open) {
        open = openRuntime(job, clock);
        if (open.failure) {
          // The code itself does not load: every input fails the same way.
          while (outcomes.length < job.inputs.length) outcomes.push(open.failure);
          break;
        }
      }
      const outcome = renderOne(open, job, input, clock);
      outcomes.push(outcome);
      if (!outcome.ok && outcome.kind !== "error") {
        closeRuntime(open);
        open = null;
        if (moduleBroken) break;
      }
    }
  } catch (error) {
    // The interpreter itself failed (e.g. its memory ran out outside any script): report, never crash the thread.
    const message = error instanceof Error ? error.message : String(error);
    while (outcomes.length < job.inputs.length) outcomes.push({ ok: false, kind: "error", message });
  } finally {
    if (open) closeRuntime(open);
  }
  while (outcomes.length < job.inputs.length) {
    outcomes.push({ ok: false, kind: "error", message: "The sandbox stopped before this render." });
  }
  return outcomes;
}

parentPort.on("message", (job) => {
  parentPort.postMessage({ id: job.id, outcomes: runJob(job) });
  if (moduleBroken) process.exit(0);
});
parentPort.postMessage({ ready: true });
