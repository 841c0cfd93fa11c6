import { and, eq } from "drizzle-orm";
import { sha256Hex } from "../../crypto/index.ts";
import type { Database } from "../../db/index.ts";
import { type ProjectApiKeySetRow, projectApiKeySets } from "./schema.ts";

export type ProjectKeyKind = "publishable_client_key" | "secret_server_key" | "super_secret_admin_key";

const hashColumn = {
  publishable_client_key: projectApiKeySets.publishableClientKeyHash,
  secret_server_key: projectApiKeySets.secretServerKeyHash,
  super_secret_admin_key: projectApiKeySets.superSecretAdminKeyHash,
} as const;

export function isKeySetActive(row: ProjectApiKeySetRow, now = new Date()): boolean {
  if (row.manuallyRevokedAt) return false;
  if (row.expiresAt && row.expiresAt.getTime() <= now.getTime()) return false;
  return true;
}

/**
 * True when `key` is a live key of that kind for the project. Keys are looked up by their SHA-256: the hash of a
 * 225-bit random key reveals nothing, and an index lookup on it leaks no more than a constant-time compare would.
 */
export async function isValidProjectKey(
  db: Database,
  projectId: string,
  kind: ProjectKeyKind,
  key: string,
): Promise<boolean> {
  const rows = await db
    .select()
    .from(projectApiKeySets)
    .where(and(eq(projectApiKeySets.projectId, projectId), eq(hashColumn[kind], sha256Hex(key))))
    .limit(5);
  return rows.some((row) => isKeySetActive(row));
}
