import { bigint, index, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { projectIdColumn } from "../projects/schema.ts";
import { userIdColumn } from "../users/schema.ts";

/**
 * A passkey (WebAuthn credential) a user registered (PROTOCOL.md §4.8). Only the public key is here: the private
 * key never leaves the authenticator, so a leaked row cannot sign anyone in.
 */
export const passkeyCredentials = pgTable(
  "passkey_credentials",
  {
    projectId: projectIdColumn(),
    id: uuid("id").primaryKey(),
    userId: userIdColumn(),
    /** The authenticator's credential id, base64url; what an assertion names. */
    credentialId: text("credential_id").notNull(),
    /** The COSE public key, base64url. */
    publicKey: text("public_key").notNull(),
    /** The authenticator's signature counter; most passkeys always report 0. */
    counter: bigint("counter", { mode: "number" }).notNull().default(0),
    transports: jsonb("transports").$type<string[]>().notNull().default([]),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    lastUsedAt: timestamp("last_used_at", { withTimezone: true, mode: "date" }),
  },
  (t) => [
    uniqueIndex("passkey_credentials_credential_unique").on(t.projectId, t.credentialId),
    index("passkey_credentials_user_idx").on(t.projectId, t.userId),
  ],
);

export type PasskeyCredentialRow = typeof passkeyCredentials.$inferSelect;
