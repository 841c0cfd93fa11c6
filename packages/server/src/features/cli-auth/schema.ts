import { index, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { projectIdColumn } from "../projects/schema.ts";

/**
 * One CLI login (PROTOCOL.md §4.9): the CLI holds the polling code, the browser gets the login code. Both codes are
 * stored as SHA-256 only. The browser's refresh token must be read back once by the poller, so it is encrypted
 * (purpose "cli-refresh-token") and cleared again when the poller collects it.
 */
export const cliAuthAttempts = pgTable(
  "cli_auth_attempts",
  {
    projectId: projectIdColumn(),
    id: uuid("id").primaryKey(),
    pollingCodeHash: text("polling_code_hash").notNull(),
    loginCodeHash: text("login_code_hash").notNull(),
    /** Set by `complete`, cleared when the poller collects it. */
    refreshTokenEncrypted: text("refresh_token_encrypted"),
    /** SHA-256 of the CLI's anonymous refresh token, the same hash the sessions table keeps. */
    anonRefreshTokenHash: text("anon_refresh_token_hash"),
    /**
     * The CLI's anonymous refresh token itself, encrypted (purpose "cli-refresh-token"): `claim-anon-session` hands
     * the browser that very session (PROTOCOL-EXTRA §8.9). Cleared with the hash when claimed or completed.
     */
    anonRefreshTokenEncrypted: text("anon_refresh_token_encrypted"),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }).notNull(),
    /** When the poller collected the refresh token. */
    usedAt: timestamp("used_at", { withTimezone: true, mode: "date" }),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("cli_auth_attempts_polling_code_unique").on(t.projectId, t.pollingCodeHash),
    uniqueIndex("cli_auth_attempts_login_code_unique").on(t.projectId, t.loginCodeHash),
    index("cli_auth_attempts_project_expiry_idx").on(t.projectId, t.expiresAt),
  ],
);

export type CliAuthAttemptRow = typeof cliAuthAttempts.$inferSelect;
