import { boolean, index, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { projectIdColumn } from "../projects/schema.ts";
import { userIdColumn, users } from "../users/schema.ts";

/**
 * An OAuth sign-in in progress (PROTOCOL.md §4.7): what the app asked for at `/auth/oauth/authorize` (the "outer"
 * flow), kept until the provider sends the browser back to our callback with our own ("inner") state. Keyed by the
 * SHA-256 of the inner state; the inner PKCE verifier is encrypted. Lives 10 minutes, and is deleted when used.
 */
export const oauthOuterStates = pgTable(
  "oauth_outer_states",
  {
    stateHash: text("state_hash").primaryKey(),
    projectId: projectIdColumn(),
    /** The provider as named in the authorize path; the callback path must name it the same way. */
    providerId: text("provider_id").notNull(),
    providerConfigId: text("provider_config_id").notNull(),
    /** Our callback URL as sent to the provider; the code exchange must repeat it exactly. */
    callbackUrl: text("callback_url").notNull(),
    codeVerifierEncrypted: text("code_verifier_encrypted").notNull(),
    providerScopes: jsonb("provider_scopes").$type<string[]>().notNull(),
    // The outer flow: the app's redirect, state and PKCE challenge, and what kind of sign-in it is.
    type: text("type", { enum: ["authenticate", "link"] }).notNull(),
    userId: uuid("user_id").references(() => users.id, { onDelete: "cascade" }),
    redirectUri: text("redirect_uri").notNull(),
    clientState: text("client_state").notNull(),
    codeChallenge: text("code_challenge").notNull(),
    codeChallengeMethod: text("code_challenge_method", { enum: ["S256", "plain"] }).notNull(),
    errorRedirectUrl: text("error_redirect_url"),
    afterCallbackRedirectUrl: text("after_callback_redirect_url"),
    responseMode: text("response_mode", { enum: ["redirect", "json"] }).notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }).notNull(),
  },
  (t) => [index("oauth_outer_states_expires_idx").on(t.expiresAt)],
);

/**
 * The code our callback hands to the app (64 hex chars, 5 minutes), exchanged at `/auth/oauth/token` with the PKCE
 * verifier. Only its SHA-256 is stored. A used code keeps its row so that a replay can be detected, and the session
 * it produced revoked (RFC 6749 §4.1.2).
 */
export const oauthAuthorizationCodes = pgTable(
  "oauth_authorization_codes",
  {
    codeHash: text("code_hash").primaryKey(),
    projectId: projectIdColumn(),
    userId: userIdColumn(),
    isNewUser: boolean("is_new_user").notNull(),
    redirectUri: text("redirect_uri").notNull(),
    codeChallenge: text("code_challenge").notNull(),
    codeChallengeMethod: text("code_challenge_method", { enum: ["S256", "plain"] }).notNull(),
    afterCallbackRedirectUrl: text("after_callback_redirect_url"),
    usedAt: timestamp("used_at", { withTimezone: true, mode: "date" }),
    /** SHA-256 of the refresh token issued for this code, to revoke that session if the code is replayed. */
    refreshTokenHash: text("refresh_token_hash"),
    /**
     * A cross-domain hand-off's code: the handing-off session's refresh token, which the exchange answers, encrypted
     * under a key derived from the code itself (only the code's hash is stored, so the row alone cannot reveal it).
     * Cleared when the code is used.
     */
    handoffRefreshToken: text("handoff_refresh_token"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }).notNull(),
  },
  (t) => [index("oauth_authorization_codes_expires_idx").on(t.expiresAt)],
);

/**
 * A provider account linked to a user (PROTOCOL.md §3.15). One provider account belongs to at most one user of a
 * project. `allow_sign_in`: the account signs the user in; `allow_connected_accounts`: the app may get provider
 * access tokens for it.
 */
export const oauthAccounts = pgTable(
  "oauth_accounts",
  {
    projectId: projectIdColumn(),
    id: uuid("id").primaryKey(),
    userId: userIdColumn(),
    providerConfigId: text("provider_config_id").notNull(),
    providerAccountId: text("provider_account_id").notNull(),
    email: text("email"),
    allowSignIn: boolean("allow_sign_in").notNull().default(true),
    allowConnectedAccounts: boolean("allow_connected_accounts").notNull().default(true),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("oauth_accounts_provider_account_unique").on(
      t.projectId,
      t.providerConfigId,
      t.providerAccountId,
    ),
    index("oauth_accounts_user_idx").on(t.projectId, t.userId),
  ],
);

/**
 * Provider tokens of a linked account, for connected accounts. Both tokens are encrypted (they must be read back
 * to be used); one row per grant, with the scopes it covers.
 */
export const oauthTokens = pgTable(
  "oauth_tokens",
  {
    projectId: projectIdColumn(),
    id: uuid("id").primaryKey(),
    oauthAccountId: uuid("oauth_account_id")
      .notNull()
      .references(() => oauthAccounts.id, { onDelete: "cascade" }),
    accessTokenEncrypted: text("access_token_encrypted").notNull(),
    refreshTokenEncrypted: text("refresh_token_encrypted"),
    scopes: jsonb("scopes").$type<string[]>().notNull(),
    /** When the access token stops working; null when the provider did not say. */
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [index("oauth_tokens_account_idx").on(t.oauthAccountId)],
);

export type OAuthOuterStateRow = typeof oauthOuterStates.$inferSelect;
export type OAuthAuthorizationCodeRow = typeof oauthAuthorizationCodes.$inferSelect;
export type OAuthAccountRow = typeof oauthAccounts.$inferSelect;
export type OAuthTokenRow = typeof oauthTokens.$inferSelect;
