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
  context: {
    projectId: string;
    user: UserRow;
    config: RenderedConfig;
    personalTeamId: string | null;
    /** OAuth accounts the creator asked to attach (`oauth_providers` of a server `POST /users`); oauth adds them. */
    oauthProviders: readonly RequestedProviderAccount[];
  },
) => Promise<void>;

export type RequestedProviderAccount = { id: string; account_id: string; email?: string | null };

/**
 * Runs inside the transaction that changed a user's password (users/update.ts): sessions signs the user out
 * everywhere, since whoever knew the old password may hold a session.
 */
export type PasswordChangedHook = (
  tx: Database,
  context: { projectId: string; userId: string },
) => Promise<void>;

/**
 * What features contribute to other features' work, gathered from every feature in features/routes.ts. This is how
 * a lower layer's work reaches a higher layer's tables (features/layers.json): the lower one calls the hook, the
 * higher one registers it.
 */
export type FeatureHooks = {
  userCreated: readonly UserCreatedHook[];
  passwordChanged: readonly PasswordChangedHook[];
};
