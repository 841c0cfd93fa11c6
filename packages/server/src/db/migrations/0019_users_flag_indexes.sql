CREATE INDEX "users_project_anonymous_idx" ON "users" USING btree ("project_id","signed_up_at","id") WHERE "users"."is_anonymous";--> statement-breakpoint
CREATE INDEX "users_project_restricted_idx" ON "users" USING btree ("project_id","signed_up_at","id") WHERE "users"."restricted_by_admin";--> statement-breakpoint
CREATE INDEX "users_project_mfa_idx" ON "users" USING btree ("project_id","signed_up_at","id") WHERE "users"."totp_secret_encrypted" is not null;--> statement-breakpoint
CREATE INDEX "users_project_otp_idx" ON "users" USING btree ("project_id","signed_up_at","id") WHERE "users"."otp_auth_enabled";--> statement-breakpoint
CREATE INDEX "users_project_passkey_idx" ON "users" USING btree ("project_id","signed_up_at","id") WHERE "users"."passkey_auth_enabled";