/**
 * Storage of the config overrides, one row per level. Secrets in the config (`CONFIG_SECRET_PATHS`: OAuth client
 * secrets, the SMTP password) are encrypted in the rows and decrypted when read, so the database never holds them
 * in plain text while everything above this module (rendering, admin reads, senders) sees the real values.
 */
import { and, eq, inArray, sql } from "drizzle-orm";
import {
  type ConfigLevel,
  type ConfigOverride,
  mapConfigSecrets,
  mergeOverrideOverride,
  type RenderedConfig,
  renderConfig,
  validateLevelOverride,
} from "../../config/index.ts";
import { decryptSecret, encryptSecret, isEncryptedSecret } from "../../crypto/index.ts";
import type { Database } from "../../db/index.ts";
import { StatusError } from "../../http/status-error.ts";
import { announceProjectChange } from "./project-changes.ts";
import { projectConfigOverrides } from "./schema.ts";

export const CONFIG_LEVELS = ["project", "branch", "environment"] as const satisfies readonly ConfigLevel[];

export type ConfigOverrides = Record<ConfigLevel, ConfigOverride>;

/** What the store needs: the database (or a transaction) and the master secret that encrypts config secrets. */
export type ConfigStoreDeps = { db: Database; env: { secret: string } };

/** The encryption purpose of config secrets; one key for every secret path, as they are all of one kind. */
const CONFIG_SECRET_PURPOSE = "config-secret";

function encryptSecrets(override: ConfigOverride, masterSecret: string): ConfigOverride {
  return mapConfigSecrets(override, (value) =>
    encryptSecret(value, { masterSecret, purpose: CONFIG_SECRET_PURPOSE }),
  );
}

function decryptSecrets(override: ConfigOverride, masterSecret: string, projectId: string): ConfigOverride {
  return mapConfigSecrets(override, (value, path) => {
    // Rows written before secrets were encrypted hold them in plain text; the next write of the level encrypts them.
    if (!isEncryptedSecret(value)) return value;
    try {
      return decryptSecret(value, { masterSecret, purpose: CONFIG_SECRET_PURPOSE });
    } catch (error) {
      throw new Error(
        `Cannot decrypt ${path} in the config of project ${projectId}: was GATEHOUSE_SECRET changed? (${(error as Error).message})`,
      );
    }
  });
}

function overridesFromRows(
  rows: readonly { level: ConfigLevel; override: unknown }[],
  masterSecret: string,
  projectId: string,
): ConfigOverrides {
  const overrides: ConfigOverrides = { project: {}, branch: {}, environment: {} };
  for (const row of rows) {
    overrides[row.level] = decryptSecrets((row.override ?? {}) as ConfigOverride, masterSecret, projectId);
  }
  return overrides;
}

/** Writes the three (possibly empty) override rows a project always has, so that updates can lock them. */
export async function createConfigRows(
  store: ConfigStoreDeps,
  projectId: string,
  projectLevel: ConfigOverride,
): Promise<void> {
  await store.db
    .insert(projectConfigOverrides)
    .values(
      CONFIG_LEVELS.map((level) => ({
        projectId,
        branchId: "main",
        level,
        override: level === "project" ? encryptSecrets(projectLevel, store.env.secret) : {},
      })),
    )
    .onConflictDoNothing();
}

/** Each level's override of the project, secrets decrypted. */
export async function getConfigOverrides(
  store: ConfigStoreDeps,
  projectId: string,
): Promise<ConfigOverrides> {
  const rows = await store.db
    .select({ level: projectConfigOverrides.level, override: projectConfigOverrides.override })
    .from(projectConfigOverrides)
    .where(and(eq(projectConfigOverrides.projectId, projectId), eq(projectConfigOverrides.branchId, "main")));
  return overridesFromRows(rows, store.env.secret, projectId);
}

function renderStored(projectId: string, overrides: ConfigOverrides): RenderedConfig {
  // Stored overrides were validated when written, so a failure here is a bug or a hand-edited row.
  const rendered = renderConfig(overrides);
  if (!rendered.ok) {
    throw new Error(
      `Stored config of project ${projectId} no longer renders: ${rendered.problems.join("; ")}`,
    );
  }
  return rendered.config;
}

/** The project's rendered config. */
export async function getRenderedConfig(store: ConfigStoreDeps, projectId: string): Promise<RenderedConfig> {
  return renderStored(projectId, await getConfigOverrides(store, projectId));
}

/** The rendered config of each project, with one query for all of them. */
export async function getRenderedConfigs(
  store: ConfigStoreDeps,
  projectIds: readonly string[],
): Promise<Map<string, RenderedConfig>> {
  const configs = new Map<string, RenderedConfig>();
  if (projectIds.length === 0) return configs;
  const rows = await store.db
    .select({
      projectId: projectConfigOverrides.projectId,
      level: projectConfigOverrides.level,
      override: projectConfigOverrides.override,
    })
    .from(projectConfigOverrides)
    .where(
      and(
        inArray(projectConfigOverrides.projectId, [...projectIds]),
        eq(projectConfigOverrides.branchId, "main"),
      ),
    );
  for (const id of new Set(projectIds)) {
    const own = rows.filter((row) => row.projectId === id);
    configs.set(id, renderStored(id, overridesFromRows(own, store.env.secret, id)));
  }
  return configs;
}

/**
 * Changes one level's override with `change`, validating that the whole config still renders. `change` gets the
 * level's current override and, for changes that depend on them, all three levels as locked. The three rows are
 * locked for the duration so that concurrent patches cannot lose each other's keys.
 */
/** The plain 400 of a refused override (PROTOCOL.md §9): one line per problem, each naming its key. */
export function invalidConfig(problems: readonly string[]): StatusError {
  return new StatusError(400, `Invalid config:\n${problems.map((p) => `- ${p}`).join("\n")}`);
}

export async function updateConfigOverride(
  store: ConfigStoreDeps,
  projectId: string,
  level: ConfigLevel,
  change: (current: ConfigOverride, levels: ConfigOverrides) => ConfigOverride,
): Promise<RenderedConfig> {
  return store.db.transaction(async (tx) => {
    const rows = await tx
      .select({ level: projectConfigOverrides.level, override: projectConfigOverrides.override })
      .from(projectConfigOverrides)
      .where(
        and(eq(projectConfigOverrides.projectId, projectId), eq(projectConfigOverrides.branchId, "main")),
      )
      .for("update");
    const overrides = overridesFromRows(rows, store.env.secret, projectId);
    const next = change(overrides[level], overrides);
    const rendered = renderConfig({ ...overrides, [level]: next });
    // Render problems, and the checks made only on writes (an email provider this server cannot send through);
    // a stored config that predates such a check is not held against an unrelated write. Sign-up rules are
    // compared by their conditions instead: an edited condition is checked even if it fails as the old one did.
    const before = renderConfig(overrides);
    const storedConfig = before.ok ? before.config : undefined;
    const existing = new Set(
      rendered.ok ? validateLevelOverride(level, overrides[level], overrides, storedConfig) : [],
    );
    const problems = rendered.ok
      ? validateLevelOverride(level, next, overrides, storedConfig).filter(
          (problem) => !existing.has(problem),
        )
      : rendered.problems;
    if (!rendered.ok || problems.length > 0) throw invalidConfig(problems);
    const stored = encryptSecrets(next, store.env.secret);
    await tx
      .insert(projectConfigOverrides)
      .values({ projectId, branchId: "main", level, override: stored })
      .onConflictDoUpdate({
        target: [
          projectConfigOverrides.projectId,
          projectConfigOverrides.branchId,
          projectConfigOverrides.level,
        ],
        set: { override: stored, updatedAt: sql`now()` },
      });
    await announceProjectChange(tx as Database, projectId);
    return rendered.config;
  });
}

/** PATCH semantics of PROTOCOL.md §9: each patched key replaces that key and everything beneath it. */
export function patchConfigOverride(
  store: ConfigStoreDeps,
  projectId: string,
  level: ConfigLevel,
  patch: ConfigOverride,
) {
  return updateConfigOverride(store, projectId, level, (current) => mergeOverrideOverride(current, patch));
}

/** Where the branch-level config comes from (PROTOCOL.md §9: a linked repository, or "unlinked"). */
export async function getBranchConfigSource(
  db: Database,
  projectId: string,
): Promise<Record<string, unknown>> {
  const [row] = await db
    .select({ source: projectConfigOverrides.source })
    .from(projectConfigOverrides)
    .where(branchRow(projectId));
  return (row?.source as Record<string, unknown> | null) ?? { type: "unlinked" };
}

export async function setBranchConfigSource(
  db: Database,
  projectId: string,
  source: Record<string, unknown>,
): Promise<void> {
  await db.update(projectConfigOverrides).set({ source }).where(branchRow(projectId));
}

function branchRow(projectId: string) {
  return and(
    eq(projectConfigOverrides.projectId, projectId),
    eq(projectConfigOverrides.branchId, "main"),
    eq(projectConfigOverrides.level, "branch"),
  );
}
