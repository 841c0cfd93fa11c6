import { constantTimeEqual, sha256Hex } from "../../crypto/index.ts";
import type { ProjectApiKeySetRow } from "./schema.ts";

export type ProjectKeyKind = "publishable_client_key" | "secret_server_key" | "super_secret_admin_key";

const hashField = {
  publishable_client_key: "publishableClientKeyHash",
  secret_server_key: "secretServerKeyHash",
  super_secret_admin_key: "superSecretAdminKeyHash",
} as const satisfies Record<ProjectKeyKind, keyof ProjectApiKeySetRow>;

export function isKeySetActive(row: ProjectApiKeySetRow, now = new Date()): boolean {
  if (row.manuallyRevokedAt) return false;
  if (row.expiresAt && row.expiresAt.getTime() <= now.getTime()) return false;
  return true;
}

/**
 * True when `key` is a live key of that kind in one of the key sets (the project cache's). Keys are matched by their
 * SHA-256: the hash of a 225-bit random key reveals nothing about the key.
 */
export function hasLiveKey(
  keySets: readonly ProjectApiKeySetRow[],
  kind: ProjectKeyKind,
  key: string,
  now = new Date(),
): boolean {
  const hash = sha256Hex(key);
  // Every set is compared, in constant time per hash, so the answer's timing does not depend on which one matched.
  let found = false;
  for (const row of keySets) {
    const stored = row[hashField[kind]];
    if (stored !== null && constantTimeEqual(stored, hash) && isKeySetActive(row, now)) found = true;
  }
  return found;
}
