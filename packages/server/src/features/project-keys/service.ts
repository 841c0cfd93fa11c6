import { and, desc, eq } from "drizzle-orm";
import { apiKeyLastFour, generateProjectApiKey, hashApiKey, randomUuid } from "../../crypto/index.ts";
import type { Database } from "../../db/index.ts";
import { announceProjectChange } from "../projects/project-changes.ts";
import { type ProjectApiKeySetRow, projectApiKeySets } from "./schema.ts";

export type NewKeySet = {
  description: string;
  expiresAt: Date | null;
  hasPublishableClientKey: boolean;
  hasSecretServerKey: boolean;
  hasSuperSecretAdminKey: boolean;
};

/** The full key values, shown once at creation and never again. */
export type CreatedKeys = {
  publishableClientKey?: string;
  secretServerKey?: string;
  superSecretAdminKey?: string;
};

/**
 * Creates a key set. `fixedKeys` replaces generated values (the seeded internal keys of test and CI setups);
 * `id` lets the seed use its well-known id.
 */
export async function createKeySet(
  db: Database,
  projectId: string,
  input: NewKeySet,
  options: { id?: string; fixedKeys?: CreatedKeys } = {},
): Promise<{ row: ProjectApiKeySetRow; keys: CreatedKeys }> {
  const keys: CreatedKeys = {};
  if (input.hasPublishableClientKey) {
    keys.publishableClientKey =
      options.fixedKeys?.publishableClientKey ?? generateProjectApiKey("publishable_client_key");
  }
  if (input.hasSecretServerKey) {
    keys.secretServerKey = options.fixedKeys?.secretServerKey ?? generateProjectApiKey("secret_server_key");
  }
  if (input.hasSuperSecretAdminKey) {
    keys.superSecretAdminKey =
      options.fixedKeys?.superSecretAdminKey ?? generateProjectApiKey("super_secret_admin_key");
  }
  const [row] = await db
    .insert(projectApiKeySets)
    .values({
      id: options.id ?? randomUuid(),
      projectId,
      description: input.description,
      expiresAt: input.expiresAt,
      publishableClientKeyHash: keys.publishableClientKey ? hashApiKey(keys.publishableClientKey) : null,
      publishableClientKeyLastFour: keys.publishableClientKey
        ? apiKeyLastFour(keys.publishableClientKey)
        : null,
      secretServerKeyHash: keys.secretServerKey ? hashApiKey(keys.secretServerKey) : null,
      secretServerKeyLastFour: keys.secretServerKey ? apiKeyLastFour(keys.secretServerKey) : null,
      superSecretAdminKeyHash: keys.superSecretAdminKey ? hashApiKey(keys.superSecretAdminKey) : null,
      superSecretAdminKeyLastFour: keys.superSecretAdminKey ? apiKeyLastFour(keys.superSecretAdminKey) : null,
    })
    .returning();
  await announceProjectChange(db, projectId);
  return { row: row!, keys };
}

export function listKeySets(db: Database, projectId: string): Promise<ProjectApiKeySetRow[]> {
  return db
    .select()
    .from(projectApiKeySets)
    .where(eq(projectApiKeySets.projectId, projectId))
    .orderBy(desc(projectApiKeySets.createdAt), projectApiKeySets.id);
}

export async function findKeySet(
  db: Database,
  projectId: string,
  id: string,
): Promise<ProjectApiKeySetRow | null> {
  const [row] = await db
    .select()
    .from(projectApiKeySets)
    .where(and(eq(projectApiKeySets.projectId, projectId), eq(projectApiKeySets.id, id)))
    .limit(1);
  return row ?? null;
}

/** Updates the description and/or revokes. Revocation is irreversible: a revoked set stays revoked. */
export async function updateKeySet(
  db: Database,
  projectId: string,
  id: string,
  changes: { description?: string | undefined; revoke?: boolean | undefined },
): Promise<ProjectApiKeySetRow | null> {
  const existing = await findKeySet(db, projectId, id);
  if (!existing) return null;
  const set: Partial<typeof projectApiKeySets.$inferInsert> = {};
  if (changes.description !== undefined) set.description = changes.description;
  if (changes.revoke && !existing.manuallyRevokedAt) set.manuallyRevokedAt = new Date();
  if (Object.keys(set).length === 0) return existing;
  const [row] = await db
    .update(projectApiKeySets)
    .set(set)
    .where(and(eq(projectApiKeySets.projectId, projectId), eq(projectApiKeySets.id, id)))
    .returning();
  await announceProjectChange(db, projectId);
  return row ?? null;
}

/** Replaces the given keys of a key set with new values (the seed follows fixed keys the operator changed). */
export async function replaceKeys(db: Database, keySetId: string, keys: CreatedKeys): Promise<void> {
  const set: Partial<typeof projectApiKeySets.$inferInsert> = {};
  if (keys.publishableClientKey) {
    set.publishableClientKeyHash = hashApiKey(keys.publishableClientKey);
    set.publishableClientKeyLastFour = apiKeyLastFour(keys.publishableClientKey);
  }
  if (keys.secretServerKey) {
    set.secretServerKeyHash = hashApiKey(keys.secretServerKey);
    set.secretServerKeyLastFour = apiKeyLastFour(keys.secretServerKey);
  }
  if (keys.superSecretAdminKey) {
    set.superSecretAdminKeyHash = hashApiKey(keys.superSecretAdminKey);
    set.superSecretAdminKeyLastFour = apiKeyLastFour(keys.superSecretAdminKey);
  }
  if (Object.keys(set).length === 0) return;
  const changed = await db
    .update(projectApiKeySets)
    .set(set)
    .where(eq(projectApiKeySets.id, keySetId))
    .returning({ projectId: projectApiKeySets.projectId });
  for (const { projectId } of changed) await announceProjectChange(db, projectId);
}
