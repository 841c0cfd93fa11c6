import { sql } from "drizzle-orm";
import { boolean, index, jsonb, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { projectIdColumn } from "../projects/schema.ts";

/**
 * An end user of a project (PROTOCOL.md §3.2). Users of the `internal` project are dashboard owners.
 * Emails live in contact_channels; the primary one is the user's `primary_email`.
 */
export const users = pgTable(
  "users",
  {
    projectId: projectIdColumn(),
    id: uuid("id").primaryKey(),
    displayName: text("display_name"),
    profileImageUrl: text("profile_image_url"),
    /** argon2id PHC string, or an imported bcrypt hash until the next sign-in upgrades it. */
    passwordHash: text("password_hash"),
    otpAuthEnabled: boolean("otp_auth_enabled").notNull().default(false),
    passkeyAuthEnabled: boolean("passkey_auth_enabled").notNull().default(false),
    /** Encrypted with the server secret; presence means TOTP multi-factor is on. */
    totpSecretEncrypted: text("totp_secret_encrypted"),
    clientMetadata: jsonb("client_metadata"),
    clientReadOnlyMetadata: jsonb("client_read_only_metadata"),
    serverMetadata: jsonb("server_metadata"),
    selectedTeamId: uuid("selected_team_id"),
    isAnonymous: boolean("is_anonymous").notNull().default(false),
    /**
     * Whether one of the user's emails is verified: kept by a trigger on contact_channels (migration
     * 0017_project_count_days) so that the verified-user count (metrics/schema.ts) follows the users row alone.
     */
    hasVerifiedEmail: boolean("has_verified_email").notNull().default(false),
    /**
     * Whether the user's primary contact channel is verified, the list's `primary_email_verified` filter: kept by a
     * trigger on contact_channels (migration 0019_verified_primary_email) so that the filter reads the users row
     * and its index, where an `exists` per user read every user's channels to count a filter's total.
     */
    hasVerifiedPrimaryEmail: boolean("has_verified_primary_email").notNull().default(false),
    restrictedByAdmin: boolean("restricted_by_admin").notNull().default(false),
    restrictedByAdminReason: text("restricted_by_admin_reason"),
    restrictedByAdminPrivateDetails: text("restricted_by_admin_private_details"),
    countryCode: text("country_code"),
    riskScores: jsonb("risk_scores")
      .notNull()
      .default(sql`'{"sign_up":{"bot":0,"free_trial_abuse":0}}'::jsonb`),
    signedUpAt: timestamp("signed_up_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    lastActiveAt: timestamp("last_active_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [
    // Keyset pagination of `GET /users` (list.ts), one index per sort order.
    index("users_project_signed_up_idx").on(t.projectId, t.signedUpAt, t.id),
    index("users_project_last_active_idx").on(t.projectId, t.lastActiveAt, t.id),
    // Substring search of `query` (list.ts): trigrams of the name (pg_trgm), with the project in the same GIN index
    // (btree_gin), so a search in a small project never reads the matches of a big one.
    index("users_project_display_name_trgm_idx").using("gin", t.projectId, t.displayName.op("gin_trgm_ops")),
    // The list's filters on flags that few users have (anonymous, restricted, MFA, OTP, passkey): a page or a
    // total reads only the users that have it, where walking the order's index would read the whole project to
    // find few or none. Each holds only those users' rows; a filter matching most users (password users, typically)
    // walks the indexes above.
    ...(
      [
        ["anonymous", sql`${t.isAnonymous}`],
        ["restricted", sql`${t.restrictedByAdmin}`],
        ["mfa", sql`${t.totpSecretEncrypted} is not null`],
        ["otp", sql`${t.otpAuthEnabled}`],
        ["passkey", sql`${t.passkeyAuthEnabled}`],
        // Both sides of the verified filter: which of the two is rare depends on the project.
        ["primary_verified", sql`${t.hasVerifiedPrimaryEmail}`],
        ["primary_unverified", sql`not ${t.hasVerifiedPrimaryEmail}`],
      ] as const
    ).map(([name, condition]) =>
      index(`users_project_${name}_idx`).on(t.projectId, t.signedUpAt, t.id).where(condition),
    ),
  ],
);

export type UserRow = typeof users.$inferSelect;

/** A row that belongs to a user (`user_id`), deleted with them. */
export function userIdColumn() {
  return uuid("user_id")
    .notNull()
    .references(() => users.id, { onDelete: "cascade" });
}
