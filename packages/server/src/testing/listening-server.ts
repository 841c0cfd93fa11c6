import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { bootGatehouse, type Gatehouse } from "../bootstrap.ts";
import type { ServerEnv } from "../env.ts";
import { removeTestDataDir, type TestServer, testApiOf, testEnv } from "./harness.ts";
import { openTestDatabase } from "./test-database.ts";

export type ListeningServer = TestServer & {
  baseUrl: string;
  gatehouse: Gatehouse;
};

/**
 * A real Gatehouse listening on a random local port, for tests that talk HTTP like an app does (SDKs, browsers).
 * `baseUrl` is also the issuer base of its access tokens. It carries the harness's kit too (`createProject`,
 * `request`, `deps`), so setting a project up is the same as in server tests.
 */
export async function startListeningServer(envOverrides: Partial<ServerEnv> = {}): Promise<ListeningServer> {
  const database = await openTestDatabase();
  // Bind first so that the base URL (and with it the token issuer) names the real port.
  let fetchHandler: (request: Request, env: unknown) => Response | Promise<Response> = () =>
    new Response("starting", { status: 503 });
  const server = serve({
    fetch: (request, env) => fetchHandler(request, env),
    port: 0,
    hostname: "127.0.0.1",
  });
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;
  const env = testEnv({ baseUrl, ...envOverrides });
  const gatehouse = await bootGatehouse(env, database);
  fetchHandler = gatehouse.app.fetch;
  return {
    ...testApiOf(gatehouse),
    baseUrl,
    gatehouse,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await gatehouse.close();
      await removeTestDataDir(env, envOverrides);
    },
  };
}
