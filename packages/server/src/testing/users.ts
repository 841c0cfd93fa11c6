import { getRenderedConfig } from "../features/projects/config-store.ts";
import { issueTokens } from "../features/sessions/service.ts";
import { createUser, type NewUser } from "../features/users/service.ts";
import type { TestServer } from "./harness.ts";

/** Creates a user straight through the service and signs them in; for tests of features that need a user. */
export async function createSignedInUser(server: TestServer, projectId: string, input: NewUser = {}) {
  const config = await getRenderedConfig(server.deps, projectId);
  const user = await createUser(server.deps.db, projectId, config, input, server.deps.hooks);
  const tokens = await issueTokens(server.deps, projectId, user, config);
  return { user, accessToken: tokens.access_token, refreshToken: tokens.refresh_token };
}
