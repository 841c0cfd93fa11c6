import { knownError } from "@gatehouse/shared";
import { and, desc, eq } from "drizzle-orm";
import {
  apiKeyLastFour,
  generateUserOrTeamApiKey,
  hashApiKey,
  parseUserOrTeamApiKey,
  randomUuid,
  type UserOrTeamApiKeyType,
} from "../../crypto/index.ts";
import type { Database } from "../../db/index.ts";
import { isUuid } from "../../fields/ids.ts";
import { type UserTeamApiKeyRow, userTeamApiKeys } from "./schema.ts";

export type ApiKeyOwner = { type: "user"; userId: string } | { type: "team"; teamId: string };

export type NewApiKey = {
  description: string;
  expiresAt: Date | null;
  isPublic: boolean;
};

/** Creates a key; the full value is returned here and nowhere else. */
export async function createApiKey(
  db: Database,
  projectId: string,
  owner: ApiKeyOwner,
  input: NewApiKey,
): Promise<{ row: UserTeamApiKeyRow; key: string }> {
  const id = randomUuid();
  const key = generateUserOrTeamApiKey({ type: owner.type, isPublic: input.isPublic, id });
  const [row] = await db
    .insert(userTeamApiKeys)
    .values({
      projectId,
      id,
      type: owner.type,
      userId: owner.type === "user" ? owner.userId : null,
      teamId: owner.type === "team" ? owner.teamId : null,
      description: input.description,
      isPublic: input.isPublic,
      keyHash: hashApiKey(key),
      lastFour: apiKeyLastFour(key),
      expiresAt: input.expiresAt,
    })
    .returning();
  return { row: row!, key };
}

/** The owner's keys, newest first (revoked and expired ones included, as the dashboard shows them). */
export function listApiKeys(
  db: Database,
  projectId: string,
  owner: ApiKeyOwner,
): Promise<UserTeamApiKeyRow[]> {
  const ownerCondition =
    owner.type === "user"
      ? eq(userTeamApiKeys.userId, owner.userId)
      : eq(userTeamApiKeys.teamId, owner.teamId);
  return db
    .select()
    .from(userTeamApiKeys)
    .where(
      and(eq(userTeamApiKeys.projectId, projectId), eq(userTeamApiKeys.type, owner.type), ownerCondition),
    )
    .orderBy(desc(userTeamApiKeys.createdAt), userTeamApiKeys.id);
}

/** A key of the given type by id; a key of the other type counts as missing. */
export async function findApiKey(
  db: Database,
  projectId: string,
  type: UserOrTeamApiKeyType,
  id: string,
): Promise<UserTeamApiKeyRow | null> {
  if (!isUuid(id)) return null;
  const [row] = await db
    .select()
    .from(userTeamApiKeys)
    .where(
      and(
        eq(userTeamApiKeys.projectId, projectId),
        eq(userTeamApiKeys.id, id),
        eq(userTeamApiKeys.type, type),
      ),
    )
    .limit(1);
  return row ?? null;
}

/**
 * Changes the description or expiry and/or revokes. Revocation is irreversible (a revoked key stays revoked at its first
 * revocation time), and public keys cannot be revoked at all.
 */
export async function updateApiKey(
  db: Database,
  existing: UserTeamApiKeyRow,
  changes: {
    description?: string | undefined;
    /** A new expiry (null: never). It does not bring back a revoked key. */
    expiresAt?: Date | null | undefined;
    revoke?: boolean | undefined;
  },
): Promise<UserTeamApiKeyRow> {
  if (changes.revoke && existing.isPublic) throw knownError("PUBLIC_API_KEY_CANNOT_BE_REVOKED");
  const set: Partial<typeof userTeamApiKeys.$inferInsert> = {};
  if (changes.description !== undefined) set.description = changes.description;
  if (changes.expiresAt !== undefined) set.expiresAt = changes.expiresAt;
  if (changes.revoke && !existing.manuallyRevokedAt) set.manuallyRevokedAt = new Date();
  if (Object.keys(set).length === 0) return existing;
  const [row] = await db
    .update(userTeamApiKeys)
    .set(set)
    .where(and(eq(userTeamApiKeys.projectId, existing.projectId), eq(userTeamApiKeys.id, existing.id)))
    .returning();
  return row ?? existing;
}

/**
 * Validates a key presented to the check endpoint: API_KEY_NOT_FOUND, WRONG_API_KEY_TYPE, API_KEY_REVOKED or
 * API_KEY_EXPIRED, in that order; otherwise its row. The lookup is by hash, so the key is never compared in plain.
 */
export async function checkApiKey(
  db: Database,
  projectId: string,
  expectedType: UserOrTeamApiKeyType,
  key: string,
): Promise<UserTeamApiKeyRow> {
  const [row] = await db
    .select()
    .from(userTeamApiKeys)
    .where(and(eq(userTeamApiKeys.projectId, projectId), eq(userTeamApiKeys.keyHash, hashApiKey(key))))
    .limit(1);
  // The id inside the key must name the row it hashes to; anything else is not a key we issued.
  const parsed = parseUserOrTeamApiKey(key);
  if (!row || (parsed !== null && parsed.id !== row.id)) throw knownError("API_KEY_NOT_FOUND");
  if (row.type !== expectedType) {
    throw knownError("WRONG_API_KEY_TYPE", { expected_type: expectedType, actual_type: row.type });
  }
  if (row.manuallyRevokedAt) throw knownError("API_KEY_REVOKED");
  if (row.expiresAt && row.expiresAt.getTime() <= Date.now()) throw knownError("API_KEY_EXPIRED");
  return row;
}
