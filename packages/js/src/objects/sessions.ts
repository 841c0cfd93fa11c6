import type { WireList, WireSession } from "@gatehouse/shared";
import { call, type Scope, seg, withQuery } from "./scope.ts";

export type GeoInfo = {
  ip: string;
  countryCode?: string | null;
  regionCode?: string | null;
  cityName?: string | null;
  latitude?: number | null;
  longitude?: number | null;
  tzIdentifier?: string | null;
};

/** One of a user's signed-in sessions (PROTOCOL.md §3.7). */
export type ActiveSession = {
  id: string;
  userId: string;
  createdAt: Date;
  isImpersonation: boolean;
  lastUsedAt: Date | undefined;
  isCurrentSession: boolean;
  geoInfo?: GeoInfo;
  /** Gatehouse: the browser's user agent at sign-in or at the last refresh, when known. */
  userAgent?: string;
};

export async function listActiveSessions(scope: Scope, userId: string): Promise<ActiveSession[]> {
  const result = await call<WireList<WireSession>>(scope, withQuery("/auth/sessions", { user_id: userId }));
  return result.items.map((item) => ({
    id: item.id,
    userId: item.user_id,
    createdAt: new Date(item.created_at),
    isImpersonation: item.is_impersonation === true,
    lastUsedAt: typeof item.last_used_at === "number" ? new Date(item.last_used_at) : undefined,
    isCurrentSession: item.is_current_session === true,
    ...(item.last_used_at_end_user_ip_info ? { geoInfo: item.last_used_at_end_user_ip_info } : {}),
    ...(typeof item.last_used_user_agent === "string" ? { userAgent: item.last_used_user_agent } : {}),
  }));
}

export async function revokeSession(scope: Scope, userId: string, sessionId: string): Promise<void> {
  await call(scope, withQuery(`/auth/sessions/${seg(sessionId)}`, { user_id: userId }), { method: "DELETE" });
  scope.ctx.invalidateUserData();
}
