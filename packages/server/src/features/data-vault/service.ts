/**
 * The data vault's entries (PROTOCOL-EXTRA §6.5): opaque values the client encrypted itself, sealed once more at
 * rest (schema.ts says how). The reference does the same with AWS KMS envelopes; here the key comes from
 * `GATEHOUSE_SECRET`, as for every other secret the server reads back.
 */
import { knownError } from "@gatehouse/shared";
import { and, eq, sql } from "drizzle-orm";
import type { RenderedConfig } from "../../config/index.ts";
import { decryptSecret, encryptSecret, sha256Hex } from "../../crypto/index.ts";
import type { Database } from "../../db/handle.ts";
import type { ServerEnv } from "../../env.ts";
import { dataVaultEntries } from "./schema.ts";

type VaultDeps = { db: Database; env: Pick<ServerEnv, "secret"> };
export type VaultSlot = { projectId: string; storeId: string; hashedKey: string };

/** DATA_VAULT_STORE_DOES_NOT_EXIST unless the config declares the store. */
export function requireStore(config: RenderedConfig, storeId: string): void {
  if (!Object.hasOwn(config.dataVault.stores, storeId)) {
    throw knownError("DATA_VAULT_STORE_DOES_NOT_EXIST", { store_id: storeId });
  }
}

/** The sealing key names the row, so a value copied into another row (project, store or key) does not open. */
function sealingKey(env: Pick<ServerEnv, "secret">, slot: VaultSlot, keyDigest: string) {
  return {
    masterSecret: env.secret,
    purpose: `data-vault-value:${slot.projectId}:${slot.storeId}:${keyDigest}`,
  };
}

/** Stores (or replaces) the value under the hashed key. */
export async function setVaultValue(deps: VaultDeps, slot: VaultSlot, encryptedValue: string): Promise<void> {
  const keyDigest = sha256Hex(slot.hashedKey);
  const valueSealed = encryptSecret(encryptedValue, sealingKey(deps.env, slot, keyDigest));
  await deps.db
    .insert(dataVaultEntries)
    .values({ projectId: slot.projectId, storeId: slot.storeId, keyDigest, valueSealed })
    .onConflictDoUpdate({
      target: [dataVaultEntries.projectId, dataVaultEntries.storeId, dataVaultEntries.keyDigest],
      set: { valueSealed, updatedAt: sql`now()` },
    });
}

/** The value under the hashed key; DATA_VAULT_STORE_HASHED_KEY_DOES_NOT_EXIST when there is none. */
export async function getVaultValue(deps: VaultDeps, slot: VaultSlot): Promise<string> {
  const keyDigest = sha256Hex(slot.hashedKey);
  const [row] = await deps.db
    .select({ valueSealed: dataVaultEntries.valueSealed })
    .from(dataVaultEntries)
    .where(
      and(
        eq(dataVaultEntries.projectId, slot.projectId),
        eq(dataVaultEntries.storeId, slot.storeId),
        eq(dataVaultEntries.keyDigest, keyDigest),
      ),
    );
  if (!row) {
    throw knownError("DATA_VAULT_STORE_HASHED_KEY_DOES_NOT_EXIST", {
      store_id: slot.storeId,
      hashed_key: slot.hashedKey,
    });
  }
  return decryptSecret(row.valueSealed, sealingKey(deps.env, slot, keyDigest));
}
