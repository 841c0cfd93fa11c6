// Every table of the server, gathered for Drizzle and drizzle-kit. Each feature owns its tables in its own folder.
export * from "../features/auth-mfa/schema.ts";
export * from "../features/auth-passkey/schema.ts";
export * from "../features/cli-auth/schema.ts";
export * from "../features/contact-channels/schema.ts";
export * from "../features/emails/schema.ts";
export * from "../features/notifications/schema.ts";
export * from "../features/oauth/schema.ts";
export * from "../features/permissions/schema.ts";
export * from "../features/project-keys/schema.ts";
export * from "../features/projects/schema.ts";
export * from "../features/sessions/schema.ts";
export * from "../features/teams/schema.ts";
export * from "../features/user-api-keys/schema.ts";
export * from "../features/users/schema.ts";
export * from "../features/verification-codes/schema.ts";
export * from "../rate-limit/schema.ts";
