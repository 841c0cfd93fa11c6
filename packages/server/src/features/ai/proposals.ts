/**
 * Config changes proposed by the model. The model's `proposeConfigChange` tool only stores a proposal with the diff
 * of the rendered config it would make; the owner applies it with a separate call (the dashboard's "Apply"), which
 * re-checks that the config still has the values the diff was made from. Nothing here runs from a model's step but
 * `proposeConfigChange`.
 */
import type { WireAiProposal } from "@gatehouse/shared";
import { and, desc, eq, sql } from "drizzle-orm";
import {
  type ConfigOverride,
  mergeOverrideOverride,
  renderConfig,
  validateLevelOverride,
  validateOverrideShape,
} from "../../config/index.ts";
import { randomUuid } from "../../crypto/index.ts";
import type { Database } from "../../db/index.ts";
import type { AppDeps } from "../../deps.ts";
import { isUuid } from "../../fields/ids.ts";
import { StatusError } from "../../http/status-error.ts";
import { type ConfigOverrides, getConfigOverrides, updateConfigOverride } from "../projects/config-store.ts";
import { isSecretPath, SECRET_PLACEHOLDER } from "./redact.ts";
import { type AiConfigDiffEntry, type AiConfigProposalRow, aiConfigProposals } from "./schema.ts";

const MAX_DIFF_ENTRIES = 200;

/** Every leaf path whose value differs between two rendered configs, secrets shown as `(secret)`. */
export function diffConfigs(before: unknown, after: unknown, path: string[] = []): AiConfigDiffEntry[] {
  const isObject = (value: unknown): value is Record<string, unknown> =>
    value !== null && typeof value === "object" && !Array.isArray(value);
  if (isObject(before) && isObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    return keys.flatMap((key) => diffConfigs(before[key], after[key], [...path, key]));
  }
  if (JSON.stringify(before) === JSON.stringify(after)) return [];
  const secret = isSecretPath(path);
  const shown = (value: unknown) => (secret && value !== undefined ? SECRET_PLACEHOLDER : (value ?? null));
  return [{ path: path.join("."), before: shown(before), after: shown(after) }];
}

export type ProposalResult = { ok: true; proposal: AiConfigProposalRow } | { ok: false; problems: string[] };

/** Checks a change against the current config (without writing it) and stores it as a pending proposal. */
export async function createProposal(
  deps: AppDeps,
  projectId: string,
  ownerKey: string,
  input: { changes: Record<string, unknown>; summary: string },
): Promise<ProposalResult> {
  const patch = input.changes as ConfigOverride;
  const shapeProblems = validateOverrideShape(patch);
  if (shapeProblems.length > 0) return { ok: false, problems: shapeProblems };
  const overrides = await getConfigOverrides(deps, projectId);
  const before = renderConfig(overrides);
  const next = mergeOverrideOverride(overrides.environment, patch);
  const after = renderConfig({ ...overrides, environment: next });
  if (!before.ok || !after.ok)
    return { ok: false, problems: after.ok ? ["the current config does not render"] : after.problems };
  const writeProblems = validateLevelOverride("environment", next, overrides);
  if (writeProblems.length > 0) return { ok: false, problems: writeProblems };
  const diff = diffConfigs(before.config, after.config);
  if (diff.length === 0) return { ok: false, problems: ["the change leaves the config as it is"] };
  if (diff.length > MAX_DIFF_ENTRIES)
    return { ok: false, problems: ["the change is too large to review; propose a smaller one"] };
  const [proposal] = await deps.db
    .insert(aiConfigProposals)
    .values({
      projectId,
      id: randomUuid(),
      ownerKey,
      level: "environment",
      override: patch,
      diff,
      summary: input.summary,
    })
    .returning();
  return { ok: true, proposal: proposal! };
}

export function proposalView(row: AiConfigProposalRow): WireAiProposal {
  return {
    id: row.id,
    status: row.status,
    summary: row.summary,
    level: row.level,
    diff: row.diff,
    created_at_millis: row.createdAt.getTime(),
    decided_at_millis: row.decidedAt?.getTime() ?? null,
  };
}

export async function proposalOr404(
  deps: AppDeps,
  projectId: string,
  id: string,
): Promise<AiConfigProposalRow> {
  const [row] = isUuid(id)
    ? await deps.db
        .select()
        .from(aiConfigProposals)
        .where(and(eq(aiConfigProposals.projectId, projectId), eq(aiConfigProposals.id, id)))
    : [];
  if (!row) throw new StatusError(404, `No AI config proposal with id ${id}.`);
  return row;
}

export async function listProposals(deps: AppDeps, projectId: string) {
  return deps.db
    .select()
    .from(aiConfigProposals)
    .where(eq(aiConfigProposals.projectId, projectId))
    .orderBy(desc(aiConfigProposals.createdAt))
    .limit(50);
}

/**
 * The owner's decision. Applying writes the stored override (PATCH semantics, validated like any config write)
 * only if every value the diff shows as "before" is still the current one; else 409 and nothing changes.
 */
export async function decideProposal(
  deps: AppDeps,
  projectId: string,
  id: string,
  decision: "apply" | "discard",
  decidedBy: string,
): Promise<AiConfigProposalRow> {
  const row = await proposalOr404(deps, projectId, id);
  if (row.status !== "pending") throw new StatusError(409, `This proposal was already ${row.status}.`);
  // One transaction: the claim (so two clicks, or two owners, apply it once), the check against the config as
  // locked, and the write. A refused write or a crash leaves the proposal pending and the config as it was, and
  // nobody sees it "applied" before the config says so.
  return deps.db.transaction(async (tx) => {
    const [claimed] = await tx
      .update(aiConfigProposals)
      .set({ status: decision === "apply" ? "applied" : "discarded", decidedAt: sql`now()`, decidedBy })
      .where(
        and(
          eq(aiConfigProposals.projectId, projectId),
          eq(aiConfigProposals.id, id),
          eq(aiConfigProposals.status, "pending"),
        ),
      )
      .returning();
    if (!claimed) throw new StatusError(409, "This proposal was decided by another call meanwhile.");
    if (decision === "apply") {
      const store = { db: tx as Database, env: deps.env };
      await updateConfigOverride(store, projectId, row.level, (current, levels) => {
        assertStillCurrent(row, levels);
        return mergeOverrideOverride(current, row.override as ConfigOverride);
      });
    }
    return claimed;
  });
}

/** 409 unless every value the diff shows as "before" is still the current one. */
function assertStillCurrent(row: AiConfigProposalRow, levels: ConfigOverrides) {
  const current = renderConfig(levels);
  if (!current.ok) return;
  const valueAt = (path: string) =>
    path
      .split(".")
      .reduce<unknown>(
        (node, key) =>
          node !== null && typeof node === "object" ? (node as Record<string, unknown>)[key] : undefined,
        current.config,
      );
  const stale = row.diff.filter(
    (entry) =>
      entry.before !== SECRET_PLACEHOLDER &&
      JSON.stringify(valueAt(entry.path) ?? null) !== JSON.stringify(entry.before),
  );
  if (stale.length > 0) {
    throw new StatusError(
      409,
      `The config changed since this was proposed (${stale.map((e) => e.path).join(", ")}); ask for a new proposal.`,
    );
  }
}
