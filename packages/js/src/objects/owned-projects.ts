import type { AppContext } from "../apps/context.ts";
import type { Session } from "../session/session.ts";
import type { Wire } from "../utils/wire.ts";
import {
  type AdminProject,
  type AdminProjectCreateOptions,
  adminProjectFromJson,
  projectUpdateToWire,
} from "./projects.ts";
import { call, type Scope } from "./scope.ts";

/**
 * Builds an admin app for a project owned by the user of `ownerSession` (PROTOCOL.md §6). The admin app module
 * registers it; going through this hook keeps users from importing the app classes they are part of.
 */
export type OwnedProjectAppFactory = (
  parent: AppContext,
  projectId: string,
  ownerSession: Session,
) => { app: unknown; scope: Scope };

let ownedProjectAppFactory: OwnedProjectAppFactory | null = null;

export function registerOwnedProjectAppFactory(factory: OwnedProjectAppFactory): void {
  ownedProjectAppFactory = factory;
}

export type AdminOwnedProject<App = Wire> = AdminProject & { readonly app: App };

export type ProjectOwnerMethods = {
  createProject(options: AdminProjectCreateOptions): Promise<AdminOwnedProject>;
  listOwnedProjects(): Promise<AdminOwnedProject[]>;
  transferProject(projectId: string, newTeamId: string): Promise<void>;
};

function ownedProjectFromJson(scope: Scope, session: Session, json: Wire): AdminOwnedProject {
  if (!ownedProjectAppFactory) {
    // The package is side-effect free, so a bundle without GatehouseAdminApp leaves the admin app out entirely.
    throw new Error(
      "Import GatehouseAdminApp (or StackAdminApp) from @gatehouse/js to work with owned projects.",
    );
  }
  const { app, scope: projectScope } = ownedProjectAppFactory(scope.ctx, json.id, session);
  return { ...adminProjectFromJson(projectScope, json), app };
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
      return ownedProjectFromJson(scope, session, json);
    },
    async listOwnedProjects() {
      const result = await call(scope, "/internal/projects");
      return (result.items as Wire[]).map((item) => ownedProjectFromJson(scope, session, item));
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
