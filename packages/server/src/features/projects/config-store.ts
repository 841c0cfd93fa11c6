import { and, eq, sql } from "drizzle-orm";
import {
  type ConfigLevel,
  type ConfigOverride,
  mergeOverrideOverride,
  type RenderedConfig,
  renderConfig,
} from "../../config/index.ts";
import type { Database } from "../../db/index.ts";
import { StatusError } from "../../http/status-error.ts";
import { projectConfigOverrides } from "./schema.ts";

export const CONFIG_LEVELS = ["project", "branch", "environment"] as const satisfies readonly ConfigLevel[];

export type ConfigOverrides = Record<ConfigLevel, ConfigOverride>;

/** Writes the three (possibly empty) override rows a project always has, so that updates can lock them. */
export async function createConfigRows(
  db: Database,
  projectId: string,
  projectLevel: ConfigOverride,
): Promise<void> {
  await db
    .insert(projectConfigOverrides)
    .values(
      CONFIG_LEVELS.map((level) => ({
        projectId,
        branchId: "main",
        level,
        override: level === "project" ? projectLevel : {},
      })),
    )
    .onConflictDoNothing();
}

export async function getConfigOverrides(db: Database, projectId: string): Promise<ConfigOverrides> {
  const rows = await db
    .select({ level: projectConfigOverrides.level, override: projectConfigOverrides.override })
    .from(projectConfigOverrides)
    .where(and(eq(projectConfigOverrides.projectId, projectId), eq(projectConfigOverrides.branchId, "main")));
  const overrides: ConfigOverrides = { project: {}, branch: {}, environment: {} };
  for (const row of rows) overrides[row.level] = (row.override ?? {}) as ConfigOverride;
  return overrides;
}

/** The project's rendered config. Stored overrides were validated when written, so rendering cannot fail here. */
export async function getRenderedConfig(db: Database, projectId: string): Promise<RenderedConfig> {
  const rendered = renderConfig(await getConfigOverrides(db, projectId));
  if (!rendered.ok) {
    throw new Error(
      `Stored config of project ${projectId} no longer renders: ${rendered.problems.join("; ")}`,
    );
  }
  return rendered.config;
}

/**
 * Changes one level's override with `change`, validating that the whole config still renders. The three rows are
 * locked for the duration so that concurrent patches cannot lose each other's keys.
 */
export async function updateConfigOverride(
  db: Database,
  projectId: string,
  level: ConfigLevel,
  change: (current: ConfigOverride) => ConfigOverride,
): Promise<RenderedConfig> {
  return db.transaction(async (tx) => {
    const rows = await tx
      .select({ level: projectConfigOverrides.level, override: projectConfigOverrides.override })
      .from(projectConfigOverrides)
      .where(
        and(eq(projectConfigOverrides.projectId, projectId), eq(projectConfigOverrides.branchId, "main")),
      )
      .for("update");
    const overrides: ConfigOverrides = { project: {}, branch: {}, environment: {} };
    for (const row of rows) overrides[row.level] = (row.override ?? {}) as ConfigOverride;
    const next = change(overrides[level]);
    const rendered = renderConfig({ ...overrides, [level]: next });
    if (!rendered.ok) {
      throw new StatusError(400, `Invalid config:\n${rendered.problems.map((p) => `- ${p}`).join("\n")}`);
    }
    await tx
      .insert(projectConfigOverrides)
      .values({ projectId, branchId: "main", level, override: next })
      .onConflictDoUpdate({
        target: [
          projectConfigOverrides.projectId,
          projectConfigOverrides.branchId,
          projectConfigOverrides.level,
        ],
        set: { override: next, updatedAt: sql`now()` },
      });
    return rendered.config;
  });
}

/** PATCH semantics of PROTOCOL.md §9: each patched key replaces that key and everything beneath it. */
export function patchConfigOverride(
  db: Database,
  projectId: string,
  level: ConfigLevel,
  patch: ConfigOverride,
) {
  return updateConfigOverride(db, projectId, level, (current) => mergeOverrideOverride(current, patch));
}
