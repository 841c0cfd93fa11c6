ALTER TABLE "product_purchases" ADD COLUMN "refund_id" uuid;--> statement-breakpoint
ALTER TABLE "product_purchases" ADD COLUMN "refund_issued_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "product_purchases" ADD COLUMN "refund_amount_usd" text;--> statement-breakpoint
ALTER TABLE "product_purchases" ADD COLUMN "refund_quantity" integer;--> statement-breakpoint
ALTER TABLE "product_purchases" ADD COLUMN "stripe_refund_id" text;--> statement-breakpoint
CREATE INDEX "product_purchases_project_refunds_idx" ON "product_purchases" USING btree ("project_id","refund_issued_at") WHERE "product_purchases"."refund_issued_at" is not null;