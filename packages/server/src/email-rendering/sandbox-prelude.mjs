// The globals an email script finds besides the language's own, for the QuickJS sandbox (sandbox-worker.mjs) and
// for the built-in sources run in process (trusted.ts). Plain JavaScript because the worker thread loads it directly.
//
// What browser code expects and React needs, with nothing that reaches outside the interpreter. Timers never fire:
// rendering is synchronous apart from promise jobs, which the host runs (see runJob).
export const PRELUDE = `
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
