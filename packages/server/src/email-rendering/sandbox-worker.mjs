// The sandbox's worker thread. Plain JavaScript (not TypeScript) because a worker thread loads its file directly,
// whether the server runs from its sources or from the bundle; sandbox.ts starts it from this path.
//
// Each job gets a fresh QuickJS runtime: a WebAssembly interpreter with no access to the network, the file system
// or the process (only the globals defined in PRELUDE below exist), a memory limit, a stack limit and a deadline
// checked by the interpreter's interrupt handler. The thread keeps the server's event loop free while a render runs.
import { parentPort } from "node:worker_threads";
import variant from "@jitl/quickjs-wasmfile-release-sync";
import { newQuickJSWASMModuleFromVariant, shouldInterruptAfterDeadline } from "quickjs-emscripten-core";

// What browser code expects and React needs, with nothing that reaches outside the interpreter. Timers never fire:
// rendering is synchronous apart from promise jobs, which the host runs (see runJob).
const PRELUDE = `
(() => {
  const noop = () => {};
  globalThis.console = { log: noop, info: noop, warn: noop, error: noop, debug: noop };
  globalThis.setTimeout = () => 0;
  globalThis.clearTimeout = noop;
  globalThis.setInterval = () => 0;
  globalThis.clearInterval = noop;
  globalThis.queueMicrotask = (callback) => { Promise.resolve().then(callback); };
  globalThis.performance = { now: () => Date.now() };
  globalThis.structuredClone = (value) => (value === undefined ? undefined : JSON.parse(JSON.stringify(value)));
  // Inert classes arktype's type checks refer to; none of them can reach the network or the disk.
  for (const name of ["Blob", "File", "FormData", "Headers", "Request", "Response", "URL"]) {
    globalThis[name] = class {};
  }
  globalThis.MessageChannel = class { constructor() { this.port1 = { onmessage: null }; this.port2 = { postMessage: noop }; } };
  globalThis.TextEncoder = class {
    encode(text = "") {
      const binary = unescape(encodeURIComponent(String(text)));
      const bytes = new Uint8Array(binary.length);
      for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
      return bytes;
    }
    encodeInto(text, target) {
      const bytes = this.encode(text);
      target.set(bytes.subarray(0, target.length));
      return { read: String(text).length, written: Math.min(bytes.length, target.length) };
    }
  };
  globalThis.TextDecoder = class {
    decode(bytes) {
      if (!bytes) return "";
      let binary = "";
      for (let i = 0; i < bytes.length; i++) binary += String.fromCharCode(bytes[i]);
      return decodeURIComponent(escape(binary));
    }
  };
})();
`;

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

function runJob(job) {
  const deadline = Date.now() + job.limits.timeMs;
  const runtime = quickJs.newRuntime();
  runtime.setMemoryLimit(job.limits.memoryBytes);
  runtime.setMaxStackSize(1024 * 1024);
  runtime.setInterruptHandler(shouldInterruptAfterDeadline(deadline));
  const context = runtime.newContext();
  try {
    for (const [code, file] of [
      [PRELUDE, "prelude.js"],
      [job.code, "email.js"],
    ]) {
      const loaded = context.evalCode(code, file);
      if (loaded.error) {
        const failure = classify(describe(context, loaded.error), job.limits, deadline);
        loaded.error.dispose();
        return { ok: false, ...failure };
      }
      loaded.value.dispose();
    }
    const call = `globalThis.__gatehouseRender(${JSON.stringify(job.input)})`;
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
          const failure = classify(describe(jobs.error.context ?? context, jobs.error), job.limits, deadline);
          jobs.error.dispose();
          return { ok: false, ...failure };
        }
        continue;
      }
      return { ok: false, ...classify(described, job.limits, deadline) };
    }
  } catch (error) {
    // The interpreter itself failed (e.g. its memory ran out outside any script): report, never crash the thread.
    return { ok: false, kind: "error", message: error instanceof Error ? error.message : String(error) };
  } finally {
    try {
      context.dispose();
      runtime.dispose();
    } catch {
      // A runtime stopped mid-allocation may refuse a clean dispose, and the module may then be unusable: answer
      // this job, then end the thread so that the pool starts a fresh one.
      moduleBroken = true;
    }
  }
}

parentPort.on("message", (job) => {
  parentPort.postMessage({ id: job.id, ...runJob(job) });
  if (moduleBroken) process.exit(0);
});
parentPort.postMessage({ ready: true });
