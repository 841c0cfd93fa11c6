import { index, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { projectIdColumn } from "../projects/schema.ts";

/**
 * A project API key set (PROTOCOL.md §3.9): up to three keys created together.
 * Only the SHA-256 of each key is stored, plus its last four characters for display.
 */
export const projectApiKeySets = pgTable(
  "project_api_key_sets",
  {
    id: uuid("id").primaryKey(),
    projectId: projectIdColumn(),
    description: text("description").notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }),
    manuallyRevokedAt: timestamp("manually_revoked_at", { withTimezone: true, mode: "date" }),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    publishableClientKeyHash: text("publishable_client_key_hash"),
    publishableClientKeyLastFour: text("publishable_client_key_last_four"),
    secretServerKeyHash: text("secret_server_key_hash"),
    secretServerKeyLastFour: text("secret_server_key_last_four"),
    superSecretAdminKeyHash: text("super_secret_admin_key_hash"),
    superSecretAdminKeyLastFour: text("super_secret_admin_key_last_four"),
  },
  (t) => [
    index("project_api_key_sets_project_idx").on(t.projectId, t.createdAt),
    index("project_api_key_sets_pck_idx").on(t.projectId, t.publishableClientKeyHash),
    index("project_api_key_sets_ssk_idx").on(t.projectId, t.secretServerKeyHash),
    index("project_api_key_sets_sak_idx").on(t.projectId, t.superSecretAdminKeyHash),
  ],
);

export type ProjectApiKeySetRow = typeof projectApiKeySets.$inferSelect;
