import type { Session } from "../session/session.ts";
import type { Wire } from "../utils/wire.ts";
import {
  type AdminProject,
  type AdminProjectCreateOptions,
  adminProjectFromJson,
  projectUpdateToWire,
} from "./projects.ts";
import { call, type Scope } from "./scope.ts";

export type AdminOwnedProject<App = Wire> = AdminProject & { readonly app: App };

export type ProjectOwnerMethods = {
  createProject(options: AdminProjectCreateOptions): Promise<AdminOwnedProject>;
  listOwnedProjects(): Promise<AdminOwnedProject[]>;
  transferProject(projectId: string, newTeamId: string): Promise<void>;
};

/**
 * Each owned project comes with an admin app acting as its owner (PROTOCOL.md §6). The admin app module is loaded
 * on first use, so a browser app that never lists owned projects does not carry it, while one that does always
 * gets it, whatever it imported and however its bundler treats side effects.
 */
async function ownedProjectsFromJson(
  scope: Scope,
  session: Session,
  items: Wire[],
): Promise<AdminOwnedProject[]> {
  const { ownedProjectAdminApp } = await import("../apps/admin-app.ts");
  return items.map((json) => {
    const { app, scope: projectScope } = ownedProjectAdminApp(scope.ctx, json.id, session);
    return { ...adminProjectFromJson(projectScope, json), app };
  });
}

/** What a user of the `internal` project can do with the projects their teams own. */
export function projectOwnerMethods(scope: Scope, session: Session): ProjectOwnerMethods {
  return {
    async createProject(options) {
      const { teamId, displayName, ...rest } = options;
      const json = await call(scope, "/internal/projects", {
        method: "POST",
        body: { ...projectUpdateToWire({ ...rest, displayName }), owner_team_id: teamId },
      });
      scope.ctx.invalidate("ownedProjects");
      const [project] = await ownedProjectsFromJson(scope, session, [json]);
      return project!;
    },
    async listOwnedProjects() {
      const result = await call(scope, "/internal/projects");
      return ownedProjectsFromJson(scope, session, result.items as Wire[]);
    },
    async transferProject(projectId, newTeamId) {
      await call(scope, "/internal/projects/transfer", {
        method: "POST",
        body: { project_id: projectId, new_team_id: newTeamId },
      });
      scope.ctx.invalidate("ownedProjects");
    },
  };
}
