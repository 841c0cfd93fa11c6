import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { bootGatehouse, type Gatehouse } from "../../../server/src/bootstrap.ts";
import type { ServerEnv } from "../../../server/src/env.ts";
import { INTERNAL_TEAM_ID } from "../../../server/src/features/project-admin/seed.ts";
import { getRenderedConfig } from "../../../server/src/features/projects/config-store.ts";
import { createOwnedProject } from "../../../server/src/features/projects/service.ts";
import { issueTokens } from "../../../server/src/features/sessions/service.ts";
import { addMember } from "../../../server/src/features/teams/service.ts";
import { createUser, type NewUser } from "../../../server/src/features/users/service.ts";
import {
  TEST_INTERNAL_KEYS,
  type TestProject,
  type TestServer,
  testApiOf,
  testEnv,
} from "../../../server/src/testing/harness.ts";
import { codeFromEmail, emailsTo } from "../../../server/src/testing/outbox.ts";
import { openTestDatabase } from "../../../server/src/testing/test-database.ts";

export type ProjectKeys = {
  publishableClientKey: string;
  secretServerKey: string;
  superSecretAdminKey: string;
};

/**
 * A real Gatehouse server on a random localhost port with a fresh database, for driving the SDK over HTTP the way
 * an app would. Setup shortcuts (users, owned projects) go straight to the server's services, so tests of the SDK
 * do not depend on endpoints that are still being built.
 */
export type RunningGatehouse = {
  baseUrl: string;
  gatehouse: Gatehouse;
  internalKeys: ProjectKeys;
  /** A fresh project with a full key set, as the server harness makes it (with `configure`). */
  createProject(displayName?: string): Promise<TestProject>;
  /** A user created by the server's own service, with a fresh session. */
  createUser(
    projectId: string,
    input?: NewUser,
  ): Promise<{ userId: string; accessToken: string; refreshToken: string }>;
  /** An internal-project user in the internal team, and a project that team owns. */
  createProjectOwner(): Promise<{
    projectId: string;
    userId: string;
    accessToken: string;
    refreshToken: string;
  }>;
  /** The code in the newest email the project sent to `address` (from the server's outbox table). */
  latestEmailCode(projectId: string, address: string): Promise<string>;
  close(): Promise<void>;
};

export async function startGatehouse(
  envOverrides: Partial<ServerEnv> = {},
  options: {
    /**
     * Make the server's public URL (GATEHOUSE_BASE_URL) its real listening address, for flows where a browser
     * follows URLs the server builds from it (the OAuth callback registered with a provider).
     */
    baseUrlIsListeningAddress?: boolean;
  } = {},
): Promise<RunningGatehouse> {
  // Listen first, so that the address is known before the server boots; requests wait for the boot.
  let booted: Gatehouse | undefined;
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const started = serve(
      {
        fetch: (request) => booted?.app.fetch(request) ?? new Response("Starting", { status: 503 }),
        port: 0,
        hostname: "127.0.0.1",
      },
      () => resolve(started),
    );
  });
  const { port } = server.address() as AddressInfo;
  const listeningUrl = `http://127.0.0.1:${port}`;
  let gatehouse: Gatehouse;
  try {
    const database = await openTestDatabase();
    const env = testEnv({
      ...(options.baseUrlIsListeningAddress ? { baseUrl: listeningUrl } : {}),
      ...envOverrides,
    });
    // With its outbox worker, as it ships: emails are rendered and delivered (to the dev outbox, or an SMTP server
    // a test configures), and read back with testing/outbox.ts.
    gatehouse = await bootGatehouse(env, database);
  } catch (error) {
    server.close();
    throw error;
  }
  booted = gatehouse;
  const { deps } = gatehouse;
  const kit = testApiOf(gatehouse);

  const createUserWithSession = async (projectId: string, input: NewUser = {}) => {
    const config = await getRenderedConfig(deps, projectId);
    const user = await createUser(deps.db, projectId, config, input, deps.hooks);
    const tokens = await issueTokens(deps, projectId, user, config);
    return { userId: user.id, accessToken: tokens.access_token, refreshToken: tokens.refresh_token };
  };

  return {
    baseUrl: listeningUrl,
    gatehouse,
    internalKeys: { ...TEST_INTERNAL_KEYS },
    createProject: (displayName = "SDK test project") => kit.createProject(displayName),
    createUser: createUserWithSession,
    async createProjectOwner() {
      const owner = await createUserWithSession("internal", {
        primaryEmail: `owner-${crypto.randomUUID()}@example.com`,
        primaryEmailVerified: true,
      });
      const config = await getRenderedConfig(deps, "internal");
      await addMember(deps.db, {
        projectId: "internal",
        teamId: INTERNAL_TEAM_ID,
        userId: owner.userId,
        config,
      });
      const project = await createOwnedProject(
        deps,
        { display_name: "Owned project", owner_team_id: INTERNAL_TEAM_ID },
        owner.userId,
      );
      return { projectId: project.id, ...owner };
    },
    async latestEmailCode(projectId, address) {
      const [email] = await emailsTo({ deps } as TestServer, projectId, address);
      if (!email) throw new Error(`No email was sent to ${address}`);
      return codeFromEmail(email.text);
    },
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        // The SDK's fetch keeps connections alive; without this, close waits for them to time out.
        (server as { closeAllConnections?: () => void }).closeAllConnections?.();
      });
      await gatehouse.close();
    },
  };
}
