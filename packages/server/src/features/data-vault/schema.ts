import { pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";
import { projects } from "../projects/schema.ts";

/**
 * One value of a data vault store (PROTOCOL-EXTRA §6.5). The client already hashes the key and encrypts the value
 * with a secret the server never sees; the server adds its own layer: the key is kept as its SHA-256 (the lookup
 * needs no more) and the value is sealed with AES-GCM under a key derived from `GATEHOUSE_SECRET`, the row's project,
 * store and key digest, so a copied database yields neither, and a value moved to another row fails to open.
 */
export const dataVaultEntries = pgTable(
  "data_vault_entries",
  {
    projectId: text("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    storeId: text("store_id").notNull(),
    /** SHA-256 (hex) of the client's `hashed_key`. */
    keyDigest: text("key_digest").notNull(),
    valueSealed: text("value_sealed").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.storeId, t.keyDigest] })],
);
