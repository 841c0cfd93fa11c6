import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createAdaptorServer } from "@hono/node-server";
import { settlesWithin } from "./background/settles-within.ts";
import type { Gatehouse } from "./bootstrap.ts";
import type { ServingSettings } from "./env.ts";

/** The HTTP servers of one process: one per listen address, all on one port, all serving the one app. */
export type Listeners = { servers: Server[]; port: number; addresses: string[] };

/** Errors of an address family the system lacks (no IPv6): a default loopback address there is skipped. */
const MISSING_FAMILY = new Set(["EADDRNOTAVAIL", "EAFNOSUPPORT"]);

/**
 * Listens on `settings.hosts` (every interface when undefined), on `port` (0: a free one, then the same for the
 * other addresses). Rejects on the first address that cannot be bound, e.g. a port in use.
 */
export async function listen(
  fetch: Gatehouse["app"]["fetch"],
  settings: Pick<ServingSettings, "hosts">,
  port: number,
): Promise<Listeners> {
  const servers: Server[] = [];
  const addresses: string[] = [];
  let boundPort = port;
  for (const host of settings.hosts ?? [undefined]) {
    const server = createAdaptorServer({ fetch }) as Server;
    try {
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(boundPort, host, () => {
          server.off("error", reject);
          resolve();
        });
      });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? "";
      if (host === "::1" && servers.length > 0 && MISSING_FAMILY.has(code)) continue;
      await Promise.all(servers.map((bound) => new Promise((resolve) => bound.close(resolve))));
      throw error;
    }
    const address = server.address() as AddressInfo;
    boundPort = address.port;
    servers.push(server);
    addresses.push(host === undefined ? `every interface, port ${address.port}` : hostAndPort(address));
  }
  return { servers, port: boundPort, addresses };
}

function hostAndPort(address: AddressInfo): string {
  return address.family === "IPv6"
    ? `[${address.address}]:${address.port}`
    : `${address.address}:${address.port}`;
}

/** What a shutdown leaves for closing the database and the last writes, out of its timeout. */
function closingMarginMs(timeoutMs: number): number {
  return Math.min(3_000, Math.floor(timeoutMs / 5));
}

/**
 * A graceful shutdown, for SIGTERM and SIGINT (README, Deploy):
 * 1. at once: /ready answers 503; the workers stop claiming and finish or hand back what they hold;
 * 2. the listeners stay open for `delayMs`, so a load balancer sees the 503 before connections are refused;
 * 3. the listeners close: no new connections; requests in flight finish, idle keep-alive connections are closed
 *    (and every answer while draining says `connection: close`);
 * 4. the database closes after the last request and the last buffered writes.
 * Everything is bounded by `timeoutMs`; what is still running near the end is cut short. Resolves true when
 * nothing had to be cut short.
 */
export async function shutDown(
  gatehouse: Pick<Gatehouse, "beginDraining" | "close">,
  listeners: Listeners,
  settings: Pick<ServingSettings, "timeoutMs" | "delayMs">,
  log: (line: string) => void,
): Promise<boolean> {
  const startedAt = Date.now();
  const closeBy = startedAt + settings.timeoutMs - closingMarginMs(settings.timeoutMs);
  const remaining = () => Math.max(0, closeBy - Date.now());
  let clean = true;

  const workers = gatehouse.beginDraining({ handBackAfterMs: remaining() });

  const requests = (async () => {
    if (settings.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, settings.delayMs));
    const closed = Promise.all(
      listeners.servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))),
    );
    // server.close() closes the connections idle right now; a connection whose request finishes later is
    // closed by its `connection: close` answer, and this catches any that went idle another way.
    const closeIdle = () => {
      for (const server of listeners.servers) server.closeIdleConnections();
    };
    closeIdle();
    const sweeper = setInterval(closeIdle, 250);
    try {
      if (!(await settlesWithin(closed, remaining()))) {
        clean = false;
        log("  Requests still running at the shutdown timeout were cut short.");
        for (const server of listeners.servers) server.closeAllConnections();
        await closed;
      }
    } finally {
      clearInterval(sweeper);
    }
  })();

  await Promise.all([workers, requests]);
  if (!(await settlesWithin(gatehouse.close(), Math.max(0, startedAt + settings.timeoutMs - Date.now())))) {
    log("  The database did not close before the shutdown timeout.");
    clean = false;
  }
  return clean;
}
