import type { WireAdminProject, WireDevInbox, WireList } from "@gatehouse/shared";
import type { Session } from "../session/session.ts";
import {
  type AdminProject,
  type AdminProjectCreateOptions,
  adminProjectFromJson,
  projectUpdateToWire,
} from "./admin-projects.ts";
import { call, type Scope } from "./scope.ts";

/**
 * The admin app's type, filled in by apps/admin-app.ts through declaration merging: this module cannot import that
 * module, not even its types, without an import cycle (the admin app extends the client app, which reaches this
 * module through the current user). Its factory comes through the app context (`loadOwnedProjectAdminApp`).
 */
// biome-ignore lint/suspicious/noEmptyInterface: declared empty here so that the admin app module can fill it in.
export interface OwnedProjectAppType {}
type OwnedProjectApp = OwnedProjectAppType extends { app: infer App } ? App : unknown;

export type AdminOwnedProject<App = OwnedProjectApp> = AdminProject & { readonly app: App };

export type ProjectOwnerMethods = {
  createProject(options: AdminProjectCreateOptions): Promise<AdminOwnedProject>;
  listOwnedProjects(): Promise<AdminOwnedProject[]>;
  transferProject(projectId: string, newTeamId: string): Promise<void>;
  /**
   * Gatehouse extension: the dashboard's own mail to this owner on a development server with no email server
   * (their verification email, sign-in codes), newest first. `isAvailable` is false where mail really goes out.
   */
  listDevInbox(): Promise<DevInbox>;
};

export type DevInboxEmail = {
  id: string;
  subject: string;
  to: string[];
  text: string;
  html: string;
  kind: string;
  createdAt: Date;
};
export type DevInbox = { isAvailable: boolean; items: DevInboxEmail[] };

/**
 * Each owned project comes with an admin app acting as its owner (PROTOCOL.md §6). The admin app module is loaded
 * on first use, so a browser app that never lists owned projects does not carry it.
 */
async function ownedProjectsFromJson(
  scope: Scope,
  session: Session,
  items: WireAdminProject[],
): Promise<AdminOwnedProject[]> {
  const ownedProjectAdminApp = await scope.ctx.loadOwnedProjectAdminApp();
  return items.map((json) => {
    const { app, ctx } = ownedProjectAdminApp(scope.ctx, json.id, session);
    const projectScope: Scope = { ctx, accessType: "admin", session: null };
    return { ...adminProjectFromJson(projectScope, json), app: app as OwnedProjectApp };
  });
}

/** What a user of the `internal` project can do with the projects their teams own. */
export function projectOwnerMethods(scope: Scope, session: Session): ProjectOwnerMethods {
  return {
    async createProject(options) {
      const { teamId, displayName, ...rest } = options;
      const json = await call<WireAdminProject>(scope, "/internal/projects", {
        method: "POST",
        body: { ...projectUpdateToWire({ ...rest, displayName }), owner_team_id: teamId },
      });
      scope.ctx.invalidate("ownedProjects");
      const [project] = await ownedProjectsFromJson(scope, session, [json]);
      return project!;
    },
    async listOwnedProjects() {
      const result = await call<WireList<WireAdminProject>>(scope, "/internal/projects");
      return ownedProjectsFromJson(scope, session, result.items);
    },
    async transferProject(projectId, newTeamId) {
      await call(scope, "/internal/projects/transfer", {
        method: "POST",
        body: { project_id: projectId, new_team_id: newTeamId },
      });
      scope.ctx.invalidate("ownedProjects");
    },
    async listDevInbox() {
      const json = await call<WireDevInbox>(scope, "/internal/dev-inbox");
      return {
        isAvailable: json.is_available,
        items: json.items.map(({ created_at_millis, ...item }) => ({
          ...item,
          createdAt: new Date(created_at_millis),
        })),
      };
    },
  };
}
