import { eq } from "drizzle-orm";
import type { RenderedConfig } from "../../config/index.ts";
import type { AppDeps } from "../../deps.ts";
import { PRIMARY_EMAIL_NEEDED } from "../../fields/email.ts";
import { StatusError } from "../../http/status-error.ts";
import { storedImageUrl } from "../images/stored-image.ts";
import type { UserCreateBody } from "./requests.ts";
import { type UserRow, users } from "./schema.ts";
import { createUser, type NewUser } from "./service.ts";
import { encryptTotpSecret } from "./totp.ts";
import { ensureTeamMember, passwordHashFromBody } from "./update.ts";

/** The user `body` describes, as `createUser` takes it: checked, the password hashed, the TOTP secret sealed. */
export async function newUserFromBody(deps: AppDeps, body: UserCreateBody): Promise<NewUser> {
  if (!body.primary_email && (body.primary_email_verified || body.primary_email_auth_enabled)) {
    throw new StatusError(400, PRIMARY_EMAIL_NEEDED);
  }
  const passwordHash = await passwordHashFromBody(body);
  const totpSecretEncrypted = body.totp_secret_base64
    ? encryptTotpSecret(deps.env, body.totp_secret_base64)
    : null;
  const restricted = body.restricted_by_admin ?? false;
  // A data URL is uploaded and replaced by its URL (PROTOCOL-EXTRA §6.7).
  const profileImageUrl = await storedImageUrl(deps.env, "user-profile-images", body.profile_image_url);
  return {
    primaryEmail: body.primary_email ?? null,
    ...(body.primary_email_verified !== undefined
      ? { primaryEmailVerified: body.primary_email_verified }
      : {}),
    ...(body.primary_email_auth_enabled !== undefined
      ? { primaryEmailAuthEnabled: body.primary_email_auth_enabled }
      : {}),
    passwordHash: passwordHash ?? null,
    displayName: body.display_name ?? null,
    profileImageUrl: profileImageUrl ?? null,
    clientMetadata: body.client_metadata ?? null,
    clientReadOnlyMetadata: body.client_read_only_metadata ?? null,
    serverMetadata: body.server_metadata ?? null,
    isAnonymous: body.is_anonymous ?? false,
    otpAuthEnabled: body.otp_auth_enabled ?? false,
    passkeyAuthEnabled: body.passkey_auth_enabled ?? false,
    totpSecretEncrypted,
    restrictedByAdmin: restricted,
    restrictedByAdminReason: restricted ? (body.restricted_by_admin_reason ?? null) : null,
    restrictedByAdminPrivateDetails: restricted ? (body.restricted_by_admin_private_details ?? null) : null,
    countryCode: body.country_code ?? null,
    ...(body.risk_scores ? { riskScores: body.risk_scores } : {}),
  };
}

/** `POST /users` (server access): checks the body, then creates the user and their primary email channel. */
export async function createUserFromBody(
  deps: AppDeps,
  projectId: string,
  config: RenderedConfig,
  body: UserCreateBody,
): Promise<UserRow> {
  const input: NewUser = {
    ...(await newUserFromBody(deps, body)),
    oauthProviders: body.oauth_providers ?? [],
    personalTeam: false,
  };
  // One transaction, so that a refused selected team leaves no user behind (createUser nests as a savepoint).
  return deps.db.transaction(async (tx) => {
    // The oauth feature's hook attaches the requested provider accounts inside createUser's transaction.
    const user = await createUser(tx, projectId, config, input, deps.hooks);
    if (body.selected_team_id === undefined) return user;
    if (body.selected_team_id !== null) await ensureTeamMember(tx, projectId, body.selected_team_id, user.id);
    const [updated] = await tx
      .update(users)
      .set({ selectedTeamId: body.selected_team_id })
      .where(eq(users.id, user.id))
      .returning();
    return updated!;
  });
}
