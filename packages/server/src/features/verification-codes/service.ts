import { knownError } from "@gatehouse/shared";
import { and, eq, inArray, isNull, type SQLWrapper, sql } from "drizzle-orm";
import { generateSecureToken, randomUuid, SECURE_TOKEN_LENGTH, sha256Hex } from "../../crypto/index.ts";
import type { Database } from "../../db/index.ts";
import { isUuid } from "../../fields/ids.ts";
import { type VerificationCodeRow, verificationCodes } from "./schema.ts";

export type CodePurpose =
  | "otp_sign_in"
  | "password_reset"
  | "email_verification"
  | "team_invitation"
  | "mfa_attempt"
  | "passkey_registration"
  | "passkey_authentication"
  | "unsubscribe"
  | "purchase";

/** Default lifetime of a code: 7 days (PROTOCOL.md §4.3); MFA attempts and passkey challenges pass their own. */
export const DEFAULT_CODE_LIFETIME_MS = 7 * 24 * 3600 * 1000;
/** The 20th wrong guess on a nonce locks it: with 6 typed characters that is 20 chances in 32^6 ≈ 1 in 54 million. */
export const MAX_CODE_ATTEMPTS = 20;
/** The first 6 characters are what a person types; the other 39 are the nonce sent back to the client. */
export const OTP_LENGTH = 6;

function nonceOf(code: string): string {
  return code.slice(OTP_LENGTH);
}

export async function createVerificationCode(
  db: Database,
  input: { projectId: string; purpose: CodePurpose; data: Record<string, unknown>; lifetimeMs?: number },
): Promise<{ code: string; row: VerificationCodeRow }> {
  const code = generateSecureToken();
  const [row] = await db
    .insert(verificationCodes)
    .values({
      projectId: input.projectId,
      id: randomUuid(),
      purpose: input.purpose,
      codeHash: sha256Hex(code),
      nonceHash: sha256Hex(nonceOf(code)),
      data: input.data,
      expiresAt: new Date(Date.now() + (input.lifetimeMs ?? DEFAULT_CODE_LIFETIME_MS)),
    })
    .returning();
  return { code, row: row! };
}

/**
 * Checks a code and, unless `peek` is set, marks it used. Errors come in the documented order: not found, expired,
 * already used, too many attempts (PROTOCOL.md §4.3). Every call counts as an attempt on the code's nonce, so that
 * guessing the 6 typed characters is bounded no matter which code the guess lands on.
 */
export async function consumeVerificationCode(
  db: Database,
  input: { projectId: string; purpose: CodePurpose; code: string; peek?: boolean },
): Promise<VerificationCodeRow> {
  const code = input.code.trim().toLowerCase();
  if (code.length !== SECURE_TOKEN_LENGTH) throw knownError("VERIFICATION_CODE_NOT_FOUND");
  const nonceHash = sha256Hex(nonceOf(code));

  // Count this attempt on every code sharing the nonce; the returned rows tell us where each code stands.
  // Deliberately no transaction: the count must stick even when the check below fails.
  {
    const siblings = await db
      .update(verificationCodes)
      .set({ attemptCount: sql`${verificationCodes.attemptCount} + 1` })
      .where(
        and(eq(verificationCodes.projectId, input.projectId), eq(verificationCodes.nonceHash, nonceHash)),
      )
      .returning();
    const codeHash = sha256Hex(code);
    const row = siblings.find((r) => r.codeHash === codeHash && r.purpose === input.purpose);
    if (!row) throw knownError("VERIFICATION_CODE_NOT_FOUND");
    if (row.expiresAt.getTime() <= Date.now()) throw knownError("VERIFICATION_CODE_EXPIRED");
    if (row.usedAt) throw knownError("VERIFICATION_CODE_ALREADY_USED");
    if (row.attemptCount > MAX_CODE_ATTEMPTS) throw knownError("VERIFICATION_CODE_MAX_ATTEMPTS_REACHED");
    if (input.peek) return row;
    // Only one of two parallel uses can flip used_at from null.
    const [used] = await db
      .update(verificationCodes)
      .set({ usedAt: new Date() })
      .where(and(eq(verificationCodes.id, row.id), isNull(verificationCodes.usedAt)))
      .returning();
    if (!used) throw knownError("VERIFICATION_CODE_ALREADY_USED");
    return used;
  }
}

/** Revokes unused codes of a purpose matching a data field, e.g. older reset codes after a successful reset. */
export async function revokeCodes(
  db: Database,
  projectId: string,
  purpose: CodePurpose,
  field: string,
  value: string,
) {
  await db
    .update(verificationCodes)
    .set({ usedAt: new Date() })
    .where(
      and(
        eq(verificationCodes.projectId, projectId),
        eq(verificationCodes.purpose, purpose),
        isNull(verificationCodes.usedAt),
        sql`${verificationCodes.data} ->> ${field} = ${value}`,
      ),
    );
}

/**
 * Deletes codes by id (a list, or a sub-select of ids), so that a link still sitting in someone's inbox answers
 * VERIFICATION_CODE_NOT_FOUND from then on. Returns how many were deleted.
 */
export async function deleteCodes(
  db: Database,
  projectId: string,
  ids: string[] | SQLWrapper,
): Promise<number> {
  const deleted = await db
    .delete(verificationCodes)
    .where(and(eq(verificationCodes.projectId, projectId), inArray(verificationCodes.id, ids)))
    .returning({ id: verificationCodes.id });
  return deleted.length;
}

/** Marks one unused code used; false when it was used already (of two parallel uses, only one flips `used_at`). */
export async function markCodeUsed(db: Database, projectId: string, codeId: string): Promise<boolean> {
  const used = await db
    .update(verificationCodes)
    .set({ usedAt: new Date() })
    .where(
      and(
        eq(verificationCodes.projectId, projectId),
        eq(verificationCodes.id, codeId),
        isNull(verificationCodes.usedAt),
      ),
    )
    .returning({ id: verificationCodes.id });
  return used.length > 0;
}

/**
 * Reads a code of `purpose` without spending it or counting an attempt: for links that are their own credential
 * (unsubscribe links, PROTOCOL-EXTRA §1.11; purchase codes, §2.4), opened as often as a page loads. The code is 45
 * random characters, so it names one row and a wrong guess reveals nothing of any code. Errors come in the order of
 * consumeVerificationCode: VERIFICATION_CODE_NOT_FOUND (none of this purpose, or of another project than
 * `projectId`; null looks in every project, for links that carry nothing but the code), _EXPIRED, then
 * _ALREADY_USED, unless `acceptUsed`: the caller then reads `usedAt` and says what a used code means.
 */
export async function openCode(
  db: Database,
  input: { projectId: string | null; purpose: CodePurpose; code: string; acceptUsed?: boolean },
): Promise<VerificationCodeRow> {
  const [row] = await db
    .select()
    .from(verificationCodes)
    .where(
      and(
        input.projectId === null ? undefined : eq(verificationCodes.projectId, input.projectId),
        eq(verificationCodes.codeHash, sha256Hex(input.code.trim().toLowerCase())),
        eq(verificationCodes.purpose, input.purpose),
      ),
    )
    .limit(1);
  if (!row) throw knownError("VERIFICATION_CODE_NOT_FOUND");
  if (row.expiresAt.getTime() <= Date.now()) throw knownError("VERIFICATION_CODE_EXPIRED");
  if (row.usedAt && !input.acceptUsed) throw knownError("VERIFICATION_CODE_ALREADY_USED");
  return row;
}

/**
 * A code's row by its id, whatever its state (used, expired): for a flow that spent the code and finishes later, as a
 * Stripe Checkout paid for with a purchase code.
 */
export async function findCodeById(
  db: Database,
  projectId: string,
  purpose: CodePurpose,
  codeId: string,
): Promise<VerificationCodeRow | null> {
  if (!isUuid(codeId)) return null;
  const [row] = await db
    .select()
    .from(verificationCodes)
    .where(
      and(
        eq(verificationCodes.projectId, projectId),
        eq(verificationCodes.id, codeId),
        eq(verificationCodes.purpose, purpose),
      ),
    );
  return row ?? null;
}
