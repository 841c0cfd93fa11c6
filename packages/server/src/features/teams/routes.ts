import type { AnyRoute } from "../../http/route.ts";
import { invitationRoutes } from "./invitation-routes.ts";
import { memberProfileRoutes, membershipRoutes } from "./member-routes.ts";
import { teamCrudRoutes } from "./team-routes.ts";

/** Teams, memberships, member profiles and invitations (PROTOCOL.md §3.3-3.5). */
export const teamRoutes: AnyRoute[] = [
  ...teamCrudRoutes,
  ...membershipRoutes,
  ...memberProfileRoutes,
  ...invitationRoutes,
];
