import { knownError } from "@gatehouse/shared";
import { and, eq } from "drizzle-orm";
import type { RenderedConfig } from "../../config/index.ts";
import { hashPassword } from "../../crypto/index.ts";
import { isUniqueViolation } from "../../db/errors.ts";
import type { Database } from "../../db/index.ts";
import type { AppDeps } from "../../deps.ts";
import { normalizeEmail } from "../../fields/email.ts";
import { applyPrimaryEmailPatch, emailTakenError } from "../contact-channels/primary-email.ts";
import { storedImageUrl } from "../images/stored-image.ts";
import { teamMembers, teams } from "../teams/schema.ts";
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from "./fields.ts";
import type { UserPatch } from "./requests.ts";
import { type UserRow, users } from "./schema.ts";
import { findPrimaryChannel, recordUserEvent } from "./service.ts";
import { encryptTotpSecret } from "./totp.ts";
import { settlePersonalTeamOnUpgrade } from "./upgrade.ts";

/** PASSWORD_TOO_SHORT / PASSWORD_TOO_LONG for a password that breaks the length rules (PROTOCOL.md §2.3). */
export function checkPasswordLength(password: string): void {
  if (password.length < PASSWORD_MIN_LENGTH) {
    throw knownError("PASSWORD_TOO_SHORT", { min_length: PASSWORD_MIN_LENGTH });
  }
  if (password.length > PASSWORD_MAX_LENGTH) {
    throw knownError("PASSWORD_TOO_LONG", { maxLength: PASSWORD_MAX_LENGTH });
  }
}

/**
 * The stored password hash a body asks for: undefined leaves it, null removes it, `password` is hashed with
 * argon2id, `password_hash` (already validated as a supported hash) is stored as given; imported bcrypt hashes are
 * upgraded by the sign-in code on the next successful sign-in.
 */
export async function passwordHashFromBody(body: {
  password?: string | null | undefined;
  password_hash?: string | undefined;
}): Promise<string | null | undefined> {
  if (body.password_hash !== undefined) return body.password_hash;
  if (body.password === undefined || body.password === null) return body.password;
  checkPasswordLength(body.password);
  return hashPassword(body.password);
}

/** TEAM_NOT_FOUND unless the team is in the project, TEAM_MEMBERSHIP_NOT_FOUND unless the user is in the team. */
export async function ensureTeamMember(db: Database, projectId: string, teamId: string, userId: string) {
  const [row] = await db
    .select({ teamId: teams.id, memberId: teamMembers.userId })
    .from(teams)
    .leftJoin(teamMembers, and(eq(teamMembers.teamId, teams.id), eq(teamMembers.userId, userId)))
    .where(and(eq(teams.projectId, projectId), eq(teams.id, teamId)))
    .limit(1);
  if (!row) throw knownError("TEAM_NOT_FOUND", { team_id: teamId });
  if (!row.memberId) throw knownError("TEAM_MEMBERSHIP_NOT_FOUND", { team_id: teamId, user_id: userId });
}

/**
 * Applies a validated update body (client bodies are a subset of server ones) to a user, in one transaction:
 * the user row, the primary email channel, and, when the password changes, the end of all the user's sessions
 * (whoever knew the old password must not stay signed in). Returns the updated row, or null if the user is gone.
 */
export async function updateUser(
  deps: AppDeps,
  projectId: string,
  user: UserRow,
  patch: UserPatch,
  config: RenderedConfig,
): Promise<UserRow | null> {
  // The slow and failing work (hashing, encryption, length rules) happens before the transaction opens.
  const passwordHash = await passwordHashFromBody(patch);
  const totpSecretEncrypted =
    patch.totp_secret_base64 == null
      ? patch.totp_secret_base64
      : encryptTotpSecret(deps.env, patch.totp_secret_base64);
  // A data URL is uploaded and replaced by its URL (PROTOCOL-EXTRA §6.7).
  const profileImageUrl = await storedImageUrl(deps.env, "user-profile-images", patch.profile_image_url);

  const set: Partial<typeof users.$inferInsert> = {};
  if (patch.display_name !== undefined) set.displayName = patch.display_name;
  if (profileImageUrl !== undefined) set.profileImageUrl = profileImageUrl;
  if (patch.client_metadata !== undefined) set.clientMetadata = patch.client_metadata;
  if (patch.client_read_only_metadata !== undefined)
    set.clientReadOnlyMetadata = patch.client_read_only_metadata;
  if (patch.server_metadata !== undefined) set.serverMetadata = patch.server_metadata;
  if (patch.selected_team_id !== undefined) set.selectedTeamId = patch.selected_team_id;
  if (patch.otp_auth_enabled !== undefined) set.otpAuthEnabled = patch.otp_auth_enabled;
  if (patch.passkey_auth_enabled !== undefined) set.passkeyAuthEnabled = patch.passkey_auth_enabled;
  if (totpSecretEncrypted !== undefined) set.totpSecretEncrypted = totpSecretEncrypted;
  if (passwordHash !== undefined) set.passwordHash = passwordHash;
  if (patch.is_anonymous === false) set.isAnonymous = false;
  if (patch.country_code !== undefined) set.countryCode = patch.country_code;
  if (patch.risk_scores !== undefined) set.riskScores = patch.risk_scores;
  if (patch.restricted_by_admin !== undefined) set.restrictedByAdmin = patch.restricted_by_admin;
  if (patch.restricted_by_admin === false) {
    set.restrictedByAdminReason = null;
    set.restrictedByAdminPrivateDetails = null;
  } else {
    // The body schema only lets these through together with restricted_by_admin: true.
    if (patch.restricted_by_admin_reason !== undefined)
      set.restrictedByAdminReason = patch.restricted_by_admin_reason;
    if (patch.restricted_by_admin_private_details !== undefined) {
      set.restrictedByAdminPrivateDetails = patch.restricted_by_admin_private_details;
    }
  }

  try {
    return await deps.db.transaction(async (tx) => {
      const where = and(eq(users.projectId, projectId), eq(users.id, user.id));
      // Lock the row first, so that concurrent updates of one user apply one after the other.
      const [locked] = await tx
        .select({ id: users.id, isAnonymous: users.isAnonymous })
        .from(users)
        .where(where)
        .for("update");
      if (!locked) return null;
      if (patch.selected_team_id) await ensureTeamMember(tx, projectId, patch.selected_team_id, user.id);
      await applyPrimaryEmailPatch(tx, projectId, user.id, {
        email: patch.primary_email,
        verified: patch.primary_email_verified,
        authEnabled: patch.primary_email_auth_enabled,
      });
      let [updated] =
        Object.keys(set).length > 0
          ? await tx.update(users).set(set).where(where).returning()
          : await tx.select().from(users).where(where);
      if (updated && locked.isAnonymous && patch.is_anonymous === false) {
        // A server upgrading an anonymous user gives them what a sign-up would have (upgrade.ts).
        const email = (await findPrimaryChannel(tx as Database, projectId, user.id))?.value ?? null;
        updated = await settlePersonalTeamOnUpgrade(tx as Database, {
          projectId,
          config,
          user: updated,
          email,
        });
      }
      if (passwordHash !== undefined) {
        for (const hook of deps.hooks.passwordChanged)
          await hook(tx as Database, { projectId, userId: user.id });
      }
      if (updated) await recordUserEvent(tx as Database, "user.updated", projectId, updated, config);
      return updated ?? null;
    });
  } catch (error) {
    // Two users claiming one sign-in email at the same moment: the unique index lets only one through.
    if (patch.primary_email && isUniqueViolation(error))
      throw emailTakenError(normalizeEmail(patch.primary_email));
    throw error;
  }
}
