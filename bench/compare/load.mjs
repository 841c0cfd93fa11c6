// A fixed number of clients, each with its own keep-alive connection, sending one request after another for a
// fixed time. node:http rather than fetch: fetch's per-request overhead in this same process would take from the
// two cores the servers need, and would be counted as theirs.
import http from "node:http";
import { performance } from "node:perf_hooks";

/**
 * `concurrency` workers each calling `step(worker)` in a loop, first for a warm-up whose figures are dropped, then
 * for `seconds`. A step that throws counts as failed; the first error is kept to show. With `sample`, what it
 * returns just before and just after the measured part comes back as `samples`.
 */
export async function measure({ seconds, warmupSeconds, concurrency, step, sample }) {
  if (warmupSeconds > 0) await loop(warmupSeconds, concurrency, step);
  const before = sample?.();
  const result = await loop(seconds, concurrency, step);
  return sample ? { ...result, samples: { before, after: sample() } } : result;
}

async function loop(seconds, concurrency, step) {
  let ok = 0;
  let failed = 0;
  let firstError;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  const worker = async (index) => {
    while (performance.now() < deadline) {
      try {
        await step(index);
        ok++;
      } catch (error) {
        failed++;
        firstError ??= error;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, (_, index) => worker(index)));
  // Requests in flight at the deadline end after it: counting them means counting their time too.
  const elapsed = (performance.now() - started) / 1000;
  return { rate: ok / elapsed, ok, failed, firstError };
}

/**
 * `measure` over HTTP with a fresh agent, so that no connection the server closed while idle between phases is
 * reused; the warm-up opens the connections the measured part then uses.
 */
export async function measureHttp({ concurrency, step, ...timing }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  try {
    return await measure({ ...timing, concurrency, step: (worker) => step(worker, agent) });
  } finally {
    agent.destroy();
  }
}

/** One request; the status, the response headers and the body as text, whatever the status. */
export function send(agent, baseUrl, { method = "GET", path, headers = {}, body }) {
  const payload = body === undefined ? undefined : Buffer.from(body);
  return new Promise((resolve, reject) => {
    const request = http.request(
      new URL(path, baseUrl),
      { method, agent, headers: payload ? { ...headers, "content-length": payload.length } : headers },
      (response) => {
        const chunks = [];
        response.on("data", (chunk) => chunks.push(chunk));
        response.on("end", () =>
          resolve({
            status: response.statusCode,
            headers: response.headers,
            text: Buffer.concat(chunks).toString("utf8"),
          }),
        );
        response.on("error", reject);
      },
    );
    request.on("error", reject);
    request.end(payload);
  });
}

/** `send`, throwing on anything but a 2xx so that `measure` counts it as failed; the parsed JSON body. */
export async function sendOk(agent, baseUrl, options) {
  const answer = await send(agent, baseUrl, options);
  if (answer.status < 200 || answer.status >= 300) {
    throw new Error(
      `${options.method ?? "GET"} ${options.path}: ${answer.status} ${answer.text.slice(0, 300)}`,
    );
  }
  return { ...answer, body: answer.text ? JSON.parse(answer.text) : null };
}
