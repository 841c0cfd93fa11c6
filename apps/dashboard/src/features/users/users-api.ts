/**
 * The users list's filters, kept in the page's URL, and the admin calls behind them: `GET /users` with the
 * protocol's parameters plus Gatehouse's dashboard filters (`primary_email_verified`, `restricted_by_admin`,
 * `has_mfa`, `auth_method`, `include_total`; see DESIGN.md), which the SDK's listUsers does not send. The calls go
 * through the admin app's own request layer (headers, owner token, errors), as payments-api.ts does.
 */
import { type GatehouseAdminApp, gatehouseInternals } from "@gatehouse/js";

export const PAGE_SIZE = 25;
const EXPORT_PAGE_SIZE = 200;

/** A user as `GET /users` lists it (PROTOCOL.md §3.2), the fields the list shows. */
export type ListedUser = {
  id: string;
  primary_email: string | null;
  primary_email_verified: boolean;
  display_name: string | null;
  profile_image_url: string | null;
  signed_up_at_millis: number;
  last_active_at_millis: number;
  has_password: boolean;
  otp_auth_enabled: boolean;
  passkey_auth_enabled: boolean;
  requires_totp_mfa: boolean;
  is_anonymous: boolean;
  restricted_by_admin: boolean;
  oauth_providers: { id: string; account_id: string; email?: string | null }[];
};

export type UsersPage = { items: ListedUser[]; nextCursor: string | null; total: number };

export const AUTH_METHODS = ["password", "otp", "passkey", "oauth"] as const;
export type AuthMethod = (typeof AUTH_METHODS)[number];
export const AUTH_METHOD_LABELS: Record<AuthMethod, string> = {
  password: "Password",
  otp: "Email code",
  passkey: "Passkey",
  oauth: "OAuth provider",
};

/** The filters, sort and page of the list, as the URL spells them (`?q=…&verified=yes&sort=last_active…`). */
export type UsersView = {
  query: string;
  verified: "yes" | "no" | null;
  restricted: "yes" | "no" | null;
  anonymous: "include" | "only" | null;
  method: AuthMethod | null;
  mfa: "yes" | "no" | null;
  sort: "signed_up" | "last_active";
  descending: boolean;
  /** The cursors of the pages opened after the first one; the current page is the last. */
  cursors: string[];
};

function oneOf<T extends string>(value: string | null, allowed: readonly T[]): T | null {
  return value !== null && (allowed as readonly string[]).includes(value) ? (value as T) : null;
}

export function viewFromSearch(search: URLSearchParams): UsersView {
  return {
    query: search.get("q") ?? "",
    verified: oneOf(search.get("verified"), ["yes", "no"]),
    restricted: oneOf(search.get("restricted"), ["yes", "no"]),
    anonymous: oneOf(search.get("anonymous"), ["include", "only"]),
    method: oneOf(search.get("method"), AUTH_METHODS),
    mfa: oneOf(search.get("mfa"), ["yes", "no"]),
    sort: search.get("sort") === "last_active" ? "last_active" : "signed_up",
    descending: search.get("dir") !== "asc",
    cursors: (search.get("cursors") ?? "").split(",").filter((cursor) => /^[0-9a-f-]{36}$/i.test(cursor)),
  };
}

/** The URL query of a view; defaults are left out, so the plain list is the plain URL. */
export function searchOfView(view: UsersView): string {
  const search = new URLSearchParams();
  if (view.query) search.set("q", view.query);
  if (view.verified) search.set("verified", view.verified);
  if (view.restricted) search.set("restricted", view.restricted);
  if (view.anonymous) search.set("anonymous", view.anonymous);
  if (view.method) search.set("method", view.method);
  if (view.mfa) search.set("mfa", view.mfa);
  if (view.sort !== "signed_up") search.set("sort", view.sort);
  if (!view.descending) search.set("dir", "asc");
  if (view.cursors.length > 0) search.set("cursors", view.cursors.join(","));
  const text = search.toString();
  return text ? `?${text}` : "";
}

export function hasFilters(view: UsersView): boolean {
  return Boolean(view.query || view.verified || view.restricted || view.anonymous || view.method || view.mfa);
}

/** `GET /users` parameters of a view. Owners see restricted users too: they manage them. */
function listParams(view: UsersView, limit: number, cursor: string | undefined): URLSearchParams {
  const params = new URLSearchParams({
    limit: String(limit),
    order_by: view.sort === "last_active" ? "last_active_at" : "signed_up_at",
    desc: String(view.descending),
    include_restricted: "true",
  });
  if (view.anonymous) params.set("include_anonymous", "true");
  if (view.anonymous === "only") params.set("only_anonymous", "true");
  if (view.query.trim()) params.set("query", view.query.trim());
  if (view.verified) params.set("primary_email_verified", String(view.verified === "yes"));
  if (view.restricted) params.set("restricted_by_admin", String(view.restricted === "yes"));
  if (view.mfa) params.set("has_mfa", String(view.mfa === "yes"));
  if (view.method) params.set("auth_method", view.method);
  if (cursor) params.set("cursor", cursor);
  return params;
}

function adminCall<T>(app: GatehouseAdminApp, path: string, init: { method?: string; body?: unknown } = {}) {
  return app[gatehouseInternals].context.call<T>(path, { ...init, accessType: "admin", session: null });
}

type ListResponse = {
  items: ListedUser[];
  pagination: { next_cursor: string | null };
  total_count?: number;
};

export async function listUsersPage(app: GatehouseAdminApp, view: UsersView): Promise<UsersPage> {
  const params = listParams(view, PAGE_SIZE, view.cursors[view.cursors.length - 1]);
  params.set("include_total", "true");
  const result = await adminCall<ListResponse>(app, `/users?${params}`);
  return { items: result.items, nextCursor: result.pagination.next_cursor, total: result.total_count ?? 0 };
}

/** Every user of the view (all pages), for the CSV export. */
export async function listAllUsers(
  app: GatehouseAdminApp,
  view: UsersView,
  onProgress?: (count: number) => void,
): Promise<ListedUser[]> {
  const all: ListedUser[] = [];
  let cursor: string | undefined;
  for (;;) {
    const result = await adminCall<ListResponse>(app, `/users?${listParams(view, EXPORT_PAGE_SIZE, cursor)}`);
    all.push(...result.items);
    onProgress?.(all.length);
    if (!result.pagination.next_cursor) return all;
    cursor = result.pagination.next_cursor;
  }
}

export function restrictUser(app: GatehouseAdminApp, userId: string): Promise<unknown> {
  return adminCall(app, `/users/${encodeURIComponent(userId)}`, {
    method: "PATCH",
    body: { restricted_by_admin: true },
  });
}

export function deleteUser(app: GatehouseAdminApp, userId: string): Promise<unknown> {
  return adminCall(app, `/users/${encodeURIComponent(userId)}`, { method: "DELETE" });
}

export function signInMethods(user: ListedUser): string[] {
  const methods: string[] = [];
  if (user.has_password) methods.push("password");
  if (user.otp_auth_enabled) methods.push("otp");
  if (user.passkey_auth_enabled) methods.push("passkey");
  for (const provider of user.oauth_providers) methods.push(provider.id);
  return methods;
}

/** A CSV field: quoted when it needs to be, and never a formula to a spreadsheet (=, +, -, @ lead with '). */
function csvField(value: string | number | boolean | null): string {
  if (value === null) return "";
  let text = String(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function usersCsv(users: ListedUser[]): string {
  const header = [
    "id",
    "primary_email",
    "primary_email_verified",
    "display_name",
    "signed_up_at",
    "last_active_at",
    "is_anonymous",
    "restricted_by_admin",
    "sign_in_methods",
    "mfa",
  ];
  const lines = users.map((user) =>
    [
      user.id,
      user.primary_email,
      user.primary_email_verified,
      user.display_name,
      new Date(user.signed_up_at_millis).toISOString(),
      new Date(user.last_active_at_millis).toISOString(),
      user.is_anonymous,
      user.restricted_by_admin,
      signInMethods(user).join(" "),
      user.requires_totp_mfa,
    ]
      .map(csvField)
      .join(","),
  );
  return `${[header.join(","), ...lines].join("\r\n")}\r\n`;
}
