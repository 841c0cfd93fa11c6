import { index, integer, jsonb, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { projectIdColumn } from "../projects/schema.ts";

/**
 * One-time codes (PROTOCOL.md §4.3): email sign-in, password reset, email verification, team invitations, MFA
 * attempts, passkey challenges. Only hashes are stored: of the full 45-character code, and of its last 39
 * characters (the "nonce"), because attempts are counted across every code sharing a nonce.
 */
export const verificationCodes = pgTable(
  "verification_codes",
  {
    projectId: projectIdColumn(),
    id: uuid("id").primaryKey(),
    purpose: text("purpose").notNull(),
    codeHash: text("code_hash").notNull(),
    nonceHash: text("nonce_hash").notNull(),
    /** What the code stands for (e.g. the email and user it was sent for). */
    data: jsonb("data").notNull(),
    attemptCount: integer("attempt_count").notNull().default(0),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }).notNull(),
    usedAt: timestamp("used_at", { withTimezone: true, mode: "date" }),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [
    index("verification_codes_lookup_idx").on(t.projectId, t.codeHash),
    index("verification_codes_nonce_idx").on(t.projectId, t.nonceHash),
    // Unsubscribe links carry only the code (PROTOCOL-EXTRA §1.11): their project is found from it.
    index("verification_codes_hash_idx").on(t.codeHash),
  ],
);

export type VerificationCodeRow = typeof verificationCodes.$inferSelect;
