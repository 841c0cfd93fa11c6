-- Trigram search of names and primary emails (users/list.ts). Both extensions are trusted since PostgreSQL 13, so a
-- database owner may create them; PGlite loads them from its contrib bundles (db/index.ts). btree_gin lets the text
-- project_id sit in the same GIN index as the trigrams.
CREATE EXTENSION IF NOT EXISTS pg_trgm;--> statement-breakpoint
CREATE EXTENSION IF NOT EXISTS btree_gin;--> statement-breakpoint
CREATE INDEX "contact_channels_project_primary_value_trgm_idx" ON "contact_channels" USING gin ("project_id","value" gin_trgm_ops) WHERE "contact_channels"."is_primary" = true;--> statement-breakpoint
CREATE INDEX "users_project_display_name_trgm_idx" ON "users" USING gin ("project_id","display_name" gin_trgm_ops);
