ALTER TABLE "cli_auth_attempts" ADD COLUMN "anon_refresh_token_encrypted" text;--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "last_used_geo" jsonb;