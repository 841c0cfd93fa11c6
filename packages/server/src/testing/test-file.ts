/**
 * The opening most server test files share: one test server for the file, created before the first test and closed
 * after the last, and what `setUp` makes of it (projects, request helpers), handed with it to `opened` so that the
 * file can keep them in its own variables.
 */
import { afterAll, beforeAll } from "vitest";
import type { ServerEnv } from "../env.ts";
import { createTestServer, type TestServer } from "./harness.ts";

export function openTestServer<T extends object>(
  setUp: (server: TestServer) => Promise<T>,
  opened: (file: T & { server: TestServer }) => void,
  envOverrides: Partial<ServerEnv> = {},
): void {
  let server: TestServer | undefined;
  beforeAll(async () => {
    server = await createTestServer(envOverrides);
    opened({ ...(await setUp(server)), server });
  });
  afterAll(() => server?.close());
}
