import { describe, expect, it } from "vitest";
import {
  applyOverride,
  defaultRenderedConfig,
  overrideToReach,
  type RenderedConfig,
} from "../../config/index.ts";
import { expandPermissions, listPermissionDefinitions, permissionScopeOf } from "./graph.ts";

function configWith(
  permissions: Record<string, { scope: "team" | "project"; contains?: string[] }>,
): RenderedConfig {
  const config = defaultRenderedConfig();
  for (const [id, { scope, contains = [] }] of Object.entries(permissions)) {
    config.rbac.permissions[id] = {
      scope,
      containedPermissionIds: Object.fromEntries(contains.map((c) => [c, true as const])),
    };
  }
  return config;
}

describe("expandPermissions", () => {
  const config = configWith({
    a: { scope: "team", contains: ["b"] },
    b: { scope: "team", contains: ["a", "c"] },
    c: { scope: "team", contains: ["$read_members"] },
    self: { scope: "team", contains: ["self"] },
    p: { scope: "project", contains: ["q"] },
    q: { scope: "project" },
  });

  it("follows containment transitively and stops on cycles", () => {
    expect([...expandPermissions(config, "team", ["a"], true)].sort()).toEqual([
      "$read_members",
      "a",
      "b",
      "c",
    ]);
    expect([...expandPermissions(config, "team", ["self"], true)]).toEqual(["self"]);
  });

  it("keeps only direct grants when not recursive", () => {
    expect([...expandPermissions(config, "team", ["a", "c"], false)].sort()).toEqual(["a", "c"]);
  });

  it("drops ids that are undefined or of the other scope", () => {
    expect([...expandPermissions(config, "team", ["gone", "p", "$nope", "$update_team"], true)]).toEqual([
      "$update_team",
    ]);
    expect([...expandPermissions(config, "project", ["p", "a"], true)].sort()).toEqual(["p", "q"]);
  });

  it("knows the scope of system permissions and lists them only for teams", () => {
    expect(permissionScopeOf(config, "$manage_api_keys")).toBe("team");
    expect(permissionScopeOf(config, "$made_up")).toBeUndefined();
    expect(listPermissionDefinitions(config, "project").map((d) => d.id)).toEqual(["p", "q"]);
    expect(listPermissionDefinitions(config, "team").map((d) => d.id)).toContain("$delete_team");
  });
});

describe("overrideToReach", () => {
  it("yields exactly the desired value when applied over the lower levels", () => {
    const lower = {
      keep: { scope: "team", description: "old", containedPermissionIds: { x: true, y: true } },
      drop: { scope: "team", containedPermissionIds: {} },
    };
    const desired = {
      keep: { scope: "team", containedPermissionIds: { y: true, z: true } },
      added: { scope: "project", containedPermissionIds: {} },
    };
    const override = overrideToReach(lower, desired);
    const merged = applyOverride({ rbac: lower }, { rbac: override } as never);
    const withoutNulls = JSON.parse(
      JSON.stringify(merged.rbac, (_key, value) => (value === null ? undefined : value)),
    );
    expect(withoutNulls).toEqual(desired);
  });
});
