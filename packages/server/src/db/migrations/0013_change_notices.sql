CREATE TABLE "change_notices" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"channel" text NOT NULL,
	"payload" text NOT NULL,
	"sent_at" timestamp with time zone DEFAULT clock_timestamp() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "change_notices_sent_at_idx" ON "change_notices" USING btree ("sent_at");