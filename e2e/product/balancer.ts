import http from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A small round-robin load balancer on 127.0.0.1, for the rolling-restart test: it behaves like a real one with
 * health checks. It sends requests only to backends whose `/ready` answered 200 at the last check (every 50 ms), and
 * retries a request on another backend when the connection is refused or reset before any byte of an answer
 * (request bodies are small, so it buffers them to send again). A backend that refuses is taken out until its next
 * good check. The client's address is simulated: `x-test-client-ip` becomes `x-forwarded-for` (the server trusts
 * one proxy), so each simulated user has its own rate-limit counters as real users behind a balancer do.
 */
export type Balancer = {
  url: string;
  port: number;
  /** The backends' ports; a port may come back later with a new process on it. */
  setBackends(ports: number[]): void;
  isReady(port: number): boolean;
  /** What it saw: retries after a refused or reset connection, and /ready answers of 503 per backend port. */
  stats: { retries: number; notReadyAnswers: Map<number, number>; errors: string[] };
  close(): Promise<void>;
};

const HOP_BY_HOP = new Set(["connection", "keep-alive", "transfer-encoding", "upgrade", "proxy-connection"]);
/** Connection failures that happen before the backend could have answered: safe to send elsewhere. */
const RETRYABLE = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE"]);
const CHECK_EVERY_MS = 50;
/** How long a request may wait for a ready backend (none ready for this long fails it). */
const WAIT_FOR_BACKEND_MS = 60_000;
const MAX_TRIES = 20;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function startBalancer(): Promise<Balancer> {
  const ready = new Map<number, boolean>();
  const stats: Balancer["stats"] = { retries: 0, notReadyAnswers: new Map(), errors: [] };
  // Keep-alive connections to the backends, as real balancers pool them: a draining backend must close them.
  const agent = new http.Agent({ keepAlive: true });
  let turn = 0;
  let closed = false;

  const check = (port: number) =>
    new Promise<void>((resolve) => {
      const request = http.get(
        { host: "127.0.0.1", port, path: "/ready", agent: false, timeout: 5_000 },
        (res) => {
          res.resume();
          if (res.statusCode === 503)
            stats.notReadyAnswers.set(port, (stats.notReadyAnswers.get(port) ?? 0) + 1);
          if (ready.has(port)) ready.set(port, res.statusCode === 200);
          resolve();
        },
      );
      const down = () => {
        if (ready.has(port)) ready.set(port, false);
        resolve();
      };
      request.on("timeout", () => request.destroy());
      request.on("error", down);
    });

  const checking = (async () => {
    while (!closed) {
      await Promise.all([...ready.keys()].map(check));
      await sleep(CHECK_EVERY_MS);
    }
  })();

  async function pickBackend(): Promise<number> {
    const deadline = Date.now() + WAIT_FOR_BACKEND_MS;
    for (;;) {
      const candidates = [...ready].filter(([, up]) => up).map(([port]) => port);
      if (candidates.length > 0) return candidates[turn++ % candidates.length]!;
      if (Date.now() > deadline) throw new Error(`no backend was ready for ${WAIT_FOR_BACKEND_MS} ms`);
      await sleep(10);
    }
  }

  type Attempt = { response: http.IncomingMessage } | { retry: string };

  function forwardOnce(port: number, incoming: http.IncomingMessage, body: Buffer): Promise<Attempt> {
    const headers: http.OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(incoming.headers)) {
      if (!HOP_BY_HOP.has(name) && name !== "x-test-client-ip" && name !== "content-length")
        headers[name] = value;
    }
    headers["content-length"] = body.length;
    const clientIp = incoming.headers["x-test-client-ip"];
    headers["x-forwarded-for"] = typeof clientIp === "string" ? clientIp : "127.0.0.1";
    return new Promise((resolve, reject) => {
      const request = http.request(
        { host: "127.0.0.1", port, method: incoming.method, path: incoming.url, headers, agent },
        (response) => resolve({ response }),
      );
      request.on("error", (error: NodeJS.ErrnoException) => {
        // Only before the answer began: once it did, the error surfaces on the response stream instead.
        if (RETRYABLE.has(error.code ?? "")) resolve({ retry: `${error.code} from port ${port}` });
        else reject(error);
      });
      request.end(body);
    });
  }

  async function handle(incoming: http.IncomingMessage, outgoing: http.ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    for (let tries = 1; ; tries++) {
      const port = await pickBackend();
      const attempt = await forwardOnce(port, incoming, body);
      if ("retry" in attempt) {
        ready.set(port, false);
        stats.retries += 1;
        if (tries >= MAX_TRIES) throw new Error(`gave up after ${tries} tries: ${attempt.retry}`);
        continue;
      }
      const { response } = attempt;
      const headers: http.OutgoingHttpHeaders = {};
      for (const [name, value] of Object.entries(response.headers)) {
        if (!HOP_BY_HOP.has(name)) headers[name] = value;
      }
      outgoing.writeHead(response.statusCode ?? 502, headers);
      for await (const chunk of response) outgoing.write(chunk);
      outgoing.end();
      return;
    }
  }

  const server = http.createServer((incoming, outgoing) => {
    handle(incoming, outgoing).catch((error: Error) => {
      stats.errors.push(`${incoming.method} ${incoming.url}: ${error.message}`);
      if (!outgoing.headersSent) outgoing.writeHead(502, { "content-type": "text/plain" });
      outgoing.end(`balancer: ${error.message}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    setBackends(ports) {
      for (const known of [...ready.keys()]) if (!ports.includes(known)) ready.delete(known);
      for (const added of ports) if (!ready.has(added)) ready.set(added, false);
    },
    isReady: (backend) => ready.get(backend) === true,
    stats,
    async close() {
      closed = true;
      await checking;
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      agent.destroy();
    },
  };
}
