import net from "node:net";

/**
 * A loopback port that was free a moment ago (bound to port 0, then released): for a process the test starts
 * itself (a pooler, the product), or as an address nobody listens on. The one copy for the test kit, e2e/ and the
 * product tests; bench/ keeps its own in bench/compare/processes.mjs, since plain Node cannot import TypeScript.
 */
export async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", () => resolve()));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}
