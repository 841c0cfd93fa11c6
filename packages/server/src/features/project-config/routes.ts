import type { WireConfigString } from "@gatehouse/shared";
import { z } from "zod";
import {
  type ConfigOverride,
  removeKeys,
  validateLevelOverride,
  validateOverrideShape,
} from "../../config/index.ts";
import { levelKeyProblem, type OverrideLevel } from "../../config/levels.ts";
import type { RequestAuth } from "../../http/request-auth.ts";
import { routeGroup } from "../../http/route.ts";
import { StatusError } from "../../http/status-error.ts";
import { wire } from "../../http/wire-schema.ts";
import {
  getBranchConfigSource,
  getConfigOverrides,
  invalidConfig,
  patchConfigOverride,
  setBranchConfigSource,
  updateConfigOverride,
} from "../projects/config-store.ts";

const tags = ["Config"];
const admin = routeGroup({ tags, access: ["admin"] });
const serverOrAdmin = routeGroup({ tags, access: ["server", "admin"] });
const levelParams = z.strictObject({ level: z.enum(["project", "branch", "environment"]) });
const success = z.object({ success: z.literal(true) });

/**
 * Parses a JSON override string from a request for one level; bad JSON, a bad shape or a key the level may not
 * hold (PROTOCOL-EXTRA.md §8.3) is a plain 400 (PROTOCOL.md §9).
 */
function parseOverride(text: string, level: OverrideLevel): ConfigOverride {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new StatusError(400, "The config override is not valid JSON.");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new StatusError(400, "The config override must be a JSON object.");
  }
  const problems = validateOverrideShape(value as ConfigOverride);
  if (problems.length > 0)
    throw new StatusError(400, `Invalid config override:\n${problems.map((p) => `- ${p}`).join("\n")}`);
  const misplaced = levelKeyProblem(level, value as ConfigOverride);
  if (misplaced) throw new StatusError(400, misplaced);
  return value as ConfigOverride;
}

const branchSource = z.discriminatedUnion("type", [
  z.strictObject({
    type: z.literal("pushed-from-github"),
    owner: z.string(),
    repo: z.string(),
    branch: z.string(),
    commit_hash: z.string(),
    config_file_path: z.string(),
  }),
  z.strictObject({ type: z.literal("pushed-from-unknown") }),
  z.strictObject({ type: z.literal("unlinked") }),
]);

const configString = wire<WireConfigString>()(z.object({ config_string: z.string() }));

/**
 * Server keys may read and write the branch level only, as in the reference (PROTOCOL-EXTRA §8.6): the project and
 * environment levels hold what the owner set in the dashboard (keys, domains, the email server).
 */
function assertLevelAccess(auth: RequestAuth, level: OverrideLevel): void {
  if (auth.accessType === "server" && level !== "branch") {
    throw new StatusError(403, "Server access can only manage branch config overrides.");
  }
}

export const configRoutes = [
  admin.get("/internal/config", {
    summary: "The fully rendered config of the current project",
    response: { body: configString },
    handler: async ({ auth }) => ({ body: { config_string: JSON.stringify(auth.config) } }),
  }),
  serverOrAdmin.get("/internal/config/override/:level", {
    summary: "The stored override of one config level",
    request: { params: levelParams },
    response: { body: configString },
    handler: async ({ deps, auth, params }) => {
      assertLevelAccess(auth, params.level);
      const overrides = await getConfigOverrides(deps, auth.project.id);
      return { body: { config_string: JSON.stringify(overrides[params.level]) } };
    },
  }),
  serverOrAdmin.patch("/internal/config/override/:level", {
    summary: "Change keys of one config level (each key replaces everything beneath it)",
    request: { params: levelParams, body: z.strictObject({ config_override_string: z.string() }) },
    response: { body: success },
    handler: async ({ deps, auth, params, body }) => {
      assertLevelAccess(auth, params.level);
      await patchConfigOverride(
        deps,
        auth.project.id,
        params.level,
        parseOverride(body.config_override_string, params.level),
      );
      return { body: { success: true } };
    },
  }),
  admin.patch("/internal/config/override", {
    summary: "Legacy alias of PATCH /internal/config/override/environment (older SDKs)",
    request: { body: z.strictObject({ config_override_string: z.string() }) },
    response: { body: success },
    handler: async ({ deps, auth, body }) => {
      await patchConfigOverride(
        deps,
        auth.project.id,
        "environment",
        parseOverride(body.config_override_string, "environment"),
      );
      return { body: { success: true } };
    },
  }),
  serverOrAdmin.put("/internal/config/override/:level", {
    summary: "Replace one config level's override",
    request: {
      params: levelParams,
      body: z.strictObject({ config_string: z.string(), source: branchSource.optional() }),
    },
    response: { body: success },
    handler: async ({ deps, auth, params, body }) => {
      assertLevelAccess(auth, params.level);
      // The config is checked before the source, as the reference does.
      const replacement = parseOverride(body.config_string, params.level);
      if (params.level === "branch" && !body.source) {
        const current = await getConfigOverrides(deps, auth.project.id);
        const problems = validateLevelOverride("branch", replacement, current);
        if (problems.length > 0) throw invalidConfig(problems);
        throw new StatusError(
          400,
          "Replacing the branch-level config requires a source: the body's source is missing.",
        );
      }
      await updateConfigOverride(deps, auth.project.id, params.level, () => replacement);
      if (body.source) {
        await setBranchConfigSource(deps.db, auth.project.id, body.source);
      }
      return { body: { success: true } };
    },
  }),
  admin.post("/internal/config/override/:level/reset-keys", {
    summary: "Remove keys (and everything beneath them) from a branch or environment override",
    request: {
      params: z.strictObject({ level: z.enum(["branch", "environment"]) }),
      body: z.strictObject({ keys: z.array(z.string().min(1).max(512)).max(1000) }),
    },
    response: { body: success },
    handler: async ({ deps, auth, params, body }) => {
      await updateConfigOverride(deps, auth.project.id, params.level, (current) =>
        removeKeys(current, body.keys),
      );
      return { body: { success: true } };
    },
  }),
  admin.get("/internal/config/source", {
    summary: "Where the branch-level config comes from",
    response: { body: z.object({ source: z.record(z.string(), z.unknown()) }) },
    handler: async ({ deps, auth }) => {
      return { body: { source: await getBranchConfigSource(deps.db, auth.project.id) } };
    },
  }),
  admin.delete("/internal/config/source", {
    summary: "Unlink the branch-level config from its source",
    response: { body: success },
    handler: async ({ deps, auth }) => {
      await setBranchConfigSource(deps.db, auth.project.id, { type: "unlinked" });
      return { body: { success: true } };
    },
  }),
];
