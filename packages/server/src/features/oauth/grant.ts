import type { RenderedConfig } from "../../config/index.ts";
import type { AppDeps } from "../../deps.ts";
import type { ProjectRow } from "../projects/schema.ts";

/**
 * One grant type of the OAuth token endpoint (oauth/token-route.ts lists them all). It gets the authenticated
 * client's project and the request's parameters, and returns the JSON body of a 200 response.
 */
export type GrantHandler = (context: {
  deps: AppDeps;
  project: ProjectRow;
  config: RenderedConfig;
  params: Record<string, string>;
  clientIp: string | null;
  /** The caller's `user-agent` header, kept on the session (sessions/service.ts). */
  userAgent: string | null;
}) => Promise<Record<string, unknown>>;
