CREATE TABLE "mfa_totp_usage" (
	"project_id" text NOT NULL,
	"user_id" uuid NOT NULL,
	"last_step" bigint NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "mfa_totp_usage_project_id_user_id_pk" PRIMARY KEY("project_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "passkey_credentials" (
	"project_id" text NOT NULL,
	"id" uuid PRIMARY KEY NOT NULL,
	"user_id" uuid NOT NULL,
	"credential_id" text NOT NULL,
	"public_key" text NOT NULL,
	"counter" bigint DEFAULT 0 NOT NULL,
	"transports" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_used_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "cli_auth_attempts" (
	"project_id" text NOT NULL,
	"id" uuid PRIMARY KEY NOT NULL,
	"polling_code_hash" text NOT NULL,
	"login_code_hash" text NOT NULL,
	"refresh_token_encrypted" text,
	"anon_refresh_token_hash" text,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "contact_channels" (
	"project_id" text NOT NULL,
	"id" uuid PRIMARY KEY NOT NULL,
	"user_id" uuid NOT NULL,
	"type" text DEFAULT 'email' NOT NULL,
	"value" text NOT NULL,
	"is_verified" boolean DEFAULT false NOT NULL,
	"is_primary" boolean DEFAULT false NOT NULL,
	"used_for_auth" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sent_emails" (
	"project_id" text NOT NULL,
	"id" uuid PRIMARY KEY NOT NULL,
	"user_id" uuid,
	"to" jsonb NOT NULL,
	"subject" text NOT NULL,
	"html" text NOT NULL,
	"text" text NOT NULL,
	"kind" text NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"transport" text,
	"error" text,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"sent_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "notification_preferences" (
	"project_id" text NOT NULL,
	"user_id" uuid NOT NULL,
	"category_id" uuid NOT NULL,
	"enabled" boolean NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "notification_preferences_user_id_category_id_pk" PRIMARY KEY("user_id","category_id")
);
--> statement-breakpoint
CREATE TABLE "oauth_accounts" (
	"project_id" text NOT NULL,
	"id" uuid PRIMARY KEY NOT NULL,
	"user_id" uuid NOT NULL,
	"provider_config_id" text NOT NULL,
	"provider_account_id" text NOT NULL,
	"email" text,
	"allow_sign_in" boolean DEFAULT true NOT NULL,
	"allow_connected_accounts" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "oauth_authorization_codes" (
	"code_hash" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"user_id" uuid NOT NULL,
	"is_new_user" boolean NOT NULL,
	"redirect_uri" text NOT NULL,
	"code_challenge" text NOT NULL,
	"code_challenge_method" text NOT NULL,
	"after_callback_redirect_url" text,
	"used_at" timestamp with time zone,
	"refresh_token_hash" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "oauth_outer_states" (
	"state_hash" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"provider_id" text NOT NULL,
	"provider_config_id" text NOT NULL,
	"callback_url" text NOT NULL,
	"code_verifier_encrypted" text NOT NULL,
	"provider_scopes" jsonb NOT NULL,
	"type" text NOT NULL,
	"user_id" uuid,
	"redirect_uri" text NOT NULL,
	"client_state" text NOT NULL,
	"code_challenge" text NOT NULL,
	"code_challenge_method" text NOT NULL,
	"error_redirect_url" text,
	"after_callback_redirect_url" text,
	"response_mode" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "oauth_tokens" (
	"project_id" text NOT NULL,
	"id" uuid PRIMARY KEY NOT NULL,
	"oauth_account_id" uuid NOT NULL,
	"access_token_encrypted" text NOT NULL,
	"refresh_token_encrypted" text,
	"scopes" jsonb NOT NULL,
	"expires_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "project_permission_grants" (
	"project_id" text NOT NULL,
	"user_id" uuid NOT NULL,
	"permission_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "project_permission_grants_user_id_permission_id_pk" PRIMARY KEY("user_id","permission_id")
);
--> statement-breakpoint
CREATE TABLE "team_permission_grants" (
	"project_id" text NOT NULL,
	"team_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"permission_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "team_permission_grants_team_id_user_id_permission_id_pk" PRIMARY KEY("team_id","user_id","permission_id")
);
--> statement-breakpoint
CREATE TABLE "project_api_key_sets" (
	"id" uuid PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"description" text NOT NULL,
	"expires_at" timestamp with time zone,
	"manually_revoked_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"publishable_client_key_hash" text,
	"publishable_client_key_last_four" text,
	"secret_server_key_hash" text,
	"secret_server_key_last_four" text,
	"super_secret_admin_key_hash" text,
	"super_secret_admin_key_last_four" text
);
--> statement-breakpoint
CREATE TABLE "project_config_overrides" (
	"project_id" text NOT NULL,
	"branch_id" text DEFAULT 'main' NOT NULL,
	"level" text NOT NULL,
	"override" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"source" jsonb,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "project_config_overrides_project_id_branch_id_level_pk" PRIMARY KEY("project_id","branch_id","level")
);
--> statement-breakpoint
CREATE TABLE "projects" (
	"id" text PRIMARY KEY NOT NULL,
	"display_name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"logo_url" text,
	"logo_full_url" text,
	"logo_dark_mode_url" text,
	"logo_full_dark_mode_url" text,
	"is_production_mode" boolean DEFAULT false NOT NULL,
	"owner_team_id" uuid,
	"onboarding_status" text DEFAULT 'completed' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sessions" (
	"project_id" text NOT NULL,
	"id" uuid PRIMARY KEY NOT NULL,
	"user_id" uuid NOT NULL,
	"refresh_token_hash" text NOT NULL,
	"is_impersonation" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone,
	"last_used_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_used_ip" text
);
--> statement-breakpoint
CREATE TABLE "team_invitations" (
	"project_id" text NOT NULL,
	"id" uuid PRIMARY KEY NOT NULL,
	"team_id" uuid NOT NULL,
	"recipient_email" text NOT NULL,
	"code_id" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "team_members" (
	"project_id" text NOT NULL,
	"team_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"display_name" text,
	"profile_image_url" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "team_members_team_id_user_id_pk" PRIMARY KEY("team_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "teams" (
	"project_id" text NOT NULL,
	"id" uuid PRIMARY KEY NOT NULL,
	"display_name" text NOT NULL,
	"profile_image_url" text,
	"client_metadata" jsonb,
	"client_read_only_metadata" jsonb,
	"server_metadata" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "user_team_api_keys" (
	"project_id" text NOT NULL,
	"id" uuid PRIMARY KEY NOT NULL,
	"type" text NOT NULL,
	"user_id" uuid,
	"team_id" uuid,
	"description" text NOT NULL,
	"is_public" boolean DEFAULT false NOT NULL,
	"key_hash" text NOT NULL,
	"last_four" text NOT NULL,
	"expires_at" timestamp with time zone,
	"manually_revoked_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "user_team_api_keys_owner_matches_type" CHECK (("user_team_api_keys"."type" = 'user' and "user_team_api_keys"."user_id" is not null and "user_team_api_keys"."team_id" is null) or ("user_team_api_keys"."type" = 'team' and "user_team_api_keys"."team_id" is not null and "user_team_api_keys"."user_id" is null))
);
--> statement-breakpoint
CREATE TABLE "users" (
	"project_id" text NOT NULL,
	"id" uuid PRIMARY KEY NOT NULL,
	"display_name" text,
	"profile_image_url" text,
	"password_hash" text,
	"otp_auth_enabled" boolean DEFAULT false NOT NULL,
	"passkey_auth_enabled" boolean DEFAULT false NOT NULL,
	"totp_secret_encrypted" text,
	"client_metadata" jsonb,
	"client_read_only_metadata" jsonb,
	"server_metadata" jsonb,
	"selected_team_id" uuid,
	"is_anonymous" boolean DEFAULT false NOT NULL,
	"restricted_by_admin" boolean DEFAULT false NOT NULL,
	"restricted_by_admin_reason" text,
	"restricted_by_admin_private_details" text,
	"country_code" text,
	"risk_scores" jsonb DEFAULT '{"sign_up":{"bot":0,"free_trial_abuse":0}}'::jsonb NOT NULL,
	"signed_up_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_active_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "verification_codes" (
	"project_id" text NOT NULL,
	"id" uuid PRIMARY KEY NOT NULL,
	"purpose" text NOT NULL,
	"code_hash" text NOT NULL,
	"nonce_hash" text NOT NULL,
	"data" jsonb NOT NULL,
	"attempt_count" integer DEFAULT 0 NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "rate_limit_counters" (
	"key" text NOT NULL,
	"window_start" timestamp with time zone NOT NULL,
	"count" integer NOT NULL,
	CONSTRAINT "rate_limit_counters_key_window_start_pk" PRIMARY KEY("key","window_start")
);
--> statement-breakpoint
ALTER TABLE "mfa_totp_usage" ADD CONSTRAINT "mfa_totp_usage_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mfa_totp_usage" ADD CONSTRAINT "mfa_totp_usage_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "passkey_credentials" ADD CONSTRAINT "passkey_credentials_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "passkey_credentials" ADD CONSTRAINT "passkey_credentials_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cli_auth_attempts" ADD CONSTRAINT "cli_auth_attempts_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "contact_channels" ADD CONSTRAINT "contact_channels_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "contact_channels" ADD CONSTRAINT "contact_channels_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sent_emails" ADD CONSTRAINT "sent_emails_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notification_preferences" ADD CONSTRAINT "notification_preferences_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notification_preferences" ADD CONSTRAINT "notification_preferences_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "oauth_accounts" ADD CONSTRAINT "oauth_accounts_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "oauth_accounts" ADD CONSTRAINT "oauth_accounts_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "oauth_authorization_codes" ADD CONSTRAINT "oauth_authorization_codes_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "oauth_authorization_codes" ADD CONSTRAINT "oauth_authorization_codes_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "oauth_outer_states" ADD CONSTRAINT "oauth_outer_states_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "oauth_outer_states" ADD CONSTRAINT "oauth_outer_states_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "oauth_tokens" ADD CONSTRAINT "oauth_tokens_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "oauth_tokens" ADD CONSTRAINT "oauth_tokens_oauth_account_id_oauth_accounts_id_fk" FOREIGN KEY ("oauth_account_id") REFERENCES "public"."oauth_accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "project_permission_grants" ADD CONSTRAINT "project_permission_grants_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "project_permission_grants" ADD CONSTRAINT "project_permission_grants_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "team_permission_grants" ADD CONSTRAINT "team_permission_grants_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "team_permission_grants" ADD CONSTRAINT "team_permission_grants_membership_fk" FOREIGN KEY ("team_id","user_id") REFERENCES "public"."team_members"("team_id","user_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "project_api_key_sets" ADD CONSTRAINT "project_api_key_sets_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "project_config_overrides" ADD CONSTRAINT "project_config_overrides_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "team_invitations" ADD CONSTRAINT "team_invitations_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "team_invitations" ADD CONSTRAINT "team_invitations_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "team_invitations" ADD CONSTRAINT "team_invitations_code_id_verification_codes_id_fk" FOREIGN KEY ("code_id") REFERENCES "public"."verification_codes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "team_members" ADD CONSTRAINT "team_members_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "team_members" ADD CONSTRAINT "team_members_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "team_members" ADD CONSTRAINT "team_members_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "teams" ADD CONSTRAINT "teams_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "user_team_api_keys" ADD CONSTRAINT "user_team_api_keys_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "user_team_api_keys" ADD CONSTRAINT "user_team_api_keys_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "user_team_api_keys" ADD CONSTRAINT "user_team_api_keys_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "users" ADD CONSTRAINT "users_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "verification_codes" ADD CONSTRAINT "verification_codes_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "passkey_credentials_credential_unique" ON "passkey_credentials" USING btree ("project_id","credential_id");--> statement-breakpoint
CREATE INDEX "passkey_credentials_user_idx" ON "passkey_credentials" USING btree ("project_id","user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "cli_auth_attempts_polling_code_unique" ON "cli_auth_attempts" USING btree ("project_id","polling_code_hash");--> statement-breakpoint
CREATE UNIQUE INDEX "cli_auth_attempts_login_code_unique" ON "cli_auth_attempts" USING btree ("project_id","login_code_hash");--> statement-breakpoint
CREATE INDEX "cli_auth_attempts_project_expiry_idx" ON "cli_auth_attempts" USING btree ("project_id","expires_at");--> statement-breakpoint
CREATE INDEX "contact_channels_project_value_idx" ON "contact_channels" USING btree ("project_id","type","value");--> statement-breakpoint
CREATE INDEX "contact_channels_project_user_idx" ON "contact_channels" USING btree ("project_id","user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "contact_channels_auth_value_unique" ON "contact_channels" USING btree ("project_id","type","value") WHERE "contact_channels"."used_for_auth" = true;--> statement-breakpoint
CREATE UNIQUE INDEX "contact_channels_one_primary_unique" ON "contact_channels" USING btree ("user_id") WHERE "contact_channels"."is_primary" = true;--> statement-breakpoint
CREATE UNIQUE INDEX "contact_channels_user_value_unique" ON "contact_channels" USING btree ("user_id","type","value");--> statement-breakpoint
CREATE INDEX "sent_emails_project_created_idx" ON "sent_emails" USING btree ("project_id","created_at");--> statement-breakpoint
CREATE INDEX "sent_emails_due_idx" ON "sent_emails" USING btree ("next_attempt_at") WHERE "sent_emails"."status" in ('queued', 'sending');--> statement-breakpoint
CREATE UNIQUE INDEX "oauth_accounts_provider_account_unique" ON "oauth_accounts" USING btree ("project_id","provider_config_id","provider_account_id");--> statement-breakpoint
CREATE INDEX "oauth_accounts_user_idx" ON "oauth_accounts" USING btree ("project_id","user_id");--> statement-breakpoint
CREATE INDEX "oauth_authorization_codes_expires_idx" ON "oauth_authorization_codes" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "oauth_outer_states_expires_idx" ON "oauth_outer_states" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "oauth_tokens_account_idx" ON "oauth_tokens" USING btree ("oauth_account_id");--> statement-breakpoint
CREATE INDEX "project_permission_grants_project_permission_idx" ON "project_permission_grants" USING btree ("project_id","permission_id");--> statement-breakpoint
CREATE INDEX "team_permission_grants_project_user_idx" ON "team_permission_grants" USING btree ("project_id","user_id");--> statement-breakpoint
CREATE INDEX "team_permission_grants_project_permission_idx" ON "team_permission_grants" USING btree ("project_id","permission_id");--> statement-breakpoint
CREATE INDEX "project_api_key_sets_project_idx" ON "project_api_key_sets" USING btree ("project_id","created_at");--> statement-breakpoint
CREATE INDEX "project_api_key_sets_pck_idx" ON "project_api_key_sets" USING btree ("project_id","publishable_client_key_hash");--> statement-breakpoint
CREATE INDEX "project_api_key_sets_ssk_idx" ON "project_api_key_sets" USING btree ("project_id","secret_server_key_hash");--> statement-breakpoint
CREATE INDEX "project_api_key_sets_sak_idx" ON "project_api_key_sets" USING btree ("project_id","super_secret_admin_key_hash");--> statement-breakpoint
CREATE INDEX "projects_owner_team_id_idx" ON "projects" USING btree ("owner_team_id");--> statement-breakpoint
CREATE UNIQUE INDEX "sessions_refresh_token_hash_unique" ON "sessions" USING btree ("refresh_token_hash");--> statement-breakpoint
CREATE INDEX "sessions_project_user_idx" ON "sessions" USING btree ("project_id","user_id","created_at");--> statement-breakpoint
CREATE INDEX "team_invitations_project_team_idx" ON "team_invitations" USING btree ("project_id","team_id");--> statement-breakpoint
CREATE INDEX "team_invitations_project_email_idx" ON "team_invitations" USING btree ("project_id","recipient_email");--> statement-breakpoint
CREATE INDEX "team_invitations_code_idx" ON "team_invitations" USING btree ("code_id");--> statement-breakpoint
CREATE INDEX "team_members_project_user_idx" ON "team_members" USING btree ("project_id","user_id");--> statement-breakpoint
CREATE INDEX "teams_project_created_idx" ON "teams" USING btree ("project_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "user_team_api_keys_hash_unique" ON "user_team_api_keys" USING btree ("project_id","key_hash");--> statement-breakpoint
CREATE INDEX "user_team_api_keys_user_idx" ON "user_team_api_keys" USING btree ("project_id","user_id","created_at");--> statement-breakpoint
CREATE INDEX "user_team_api_keys_team_idx" ON "user_team_api_keys" USING btree ("project_id","team_id","created_at");--> statement-breakpoint
CREATE INDEX "users_project_signed_up_idx" ON "users" USING btree ("project_id","signed_up_at","id");--> statement-breakpoint
CREATE INDEX "users_project_last_active_idx" ON "users" USING btree ("project_id","last_active_at","id");--> statement-breakpoint
CREATE INDEX "verification_codes_lookup_idx" ON "verification_codes" USING btree ("project_id","code_hash");--> statement-breakpoint
CREATE INDEX "verification_codes_nonce_idx" ON "verification_codes" USING btree ("project_id","nonce_hash");