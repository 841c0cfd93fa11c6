import {
  type AdminOwnedProject,
  type CurrentUser,
  GatehouseAdminApp,
  GatehouseClientApp,
} from "@gatehouse/js";
import { navigate } from "./router.tsx";

/**
 * The dashboard is an app of the `internal` project, served from the API's own origin. The internal project takes
 * keyless client requests, so no publishable key is needed.
 */
export const dashboardApp = new GatehouseClientApp({
  projectId: "internal",
  baseUrl: window.location.origin,
  tokenStore: "cookie",
  redirectMethod: { navigate: (to) => navigate(to) },
  urls: {
    handler: "/handler",
    home: "/",
    afterSignIn: "/",
    afterSignUp: "/",
    afterSignOut: "/handler/sign-in",
  },
});

/** The admin app of an owned project, typed as such (the SDK types `app` loosely for non-internal projects). */
export function adminAppOf(project: { app: unknown }): GatehouseAdminApp {
  if (!(project.app instanceof GatehouseAdminApp)) throw new Error("The project came without an admin app.");
  return project.app;
}

export type OwnedProject = AdminOwnedProject;

/** The owner methods exist on users of the internal project; the type marks them optional for other projects. */
export function ownerMethods(user: CurrentUser) {
  if (!user.createProject || !user.listOwnedProjects || !user.transferProject || !user.listDevInbox) {
    throw new Error("The signed-in user is not a user of the internal project.");
  }
  return {
    createProject: user.createProject,
    listOwnedProjects: user.listOwnedProjects as () => Promise<OwnedProject[]>,
    transferProject: user.transferProject,
    listDevInbox: user.listDevInbox,
  };
}
