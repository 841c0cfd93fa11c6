import type { RenderedConfig } from "../config/index.ts";
import type { Database } from "../db/index.ts";
import type { UserRow } from "./users/schema.ts";

/**
 * Runs inside the user-creation transaction, after the user row, its primary email and (when the project asks for
 * one) its personal team exist: a feature adds what it owns for every new user (default permissions, and later
 * events for webhooks). Throwing rolls the whole creation back.
 */
export type UserCreatedHook = (
  tx: Database,
  context: { projectId: string; user: UserRow; config: RenderedConfig; personalTeamId: string | null },
) => Promise<void>;

/** What features contribute to other features' work, gathered from every feature in features/routes.ts. */
export type FeatureHooks = {
  userCreated: readonly UserCreatedHook[];
};
