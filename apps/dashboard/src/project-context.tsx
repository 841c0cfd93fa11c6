import type { AdminProject, CurrentUser, GatehouseAdminApp } from "@gatehouse/js";
import { createContext, useContext } from "react";
import type { OwnedProject } from "./gatehouse.ts";

export type ProjectContextValue = {
  user: CurrentUser;
  projects: OwnedProject[];
  /** The project currently open, as last read; `refresh()` reads it again after a change. */
  project: AdminProject;
  app: GatehouseAdminApp;
  refresh: () => Promise<void>;
  reloadProjects: () => Promise<void>;
};

export const ProjectContext = createContext<ProjectContextValue | null>(null);

export function useProjectContext(): ProjectContextValue {
  const value = useContext(ProjectContext);
  if (!value) throw new Error("useProjectContext outside a project page");
  return value;
}

/** `/projects/<id>/<rest>` for the open project. */
export function projectPath(projectId: string, rest = ""): string {
  return `/projects/${encodeURIComponent(projectId)}${rest ? `/${rest}` : ""}`;
}
