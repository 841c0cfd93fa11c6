/**
 * The users list's filters, kept in the page's URL, and the list calls behind them: the SDK's `filterUsers` (`GET
 * /users` with Gatehouse's filters and the filter's total; see DECISIONS.md).
 */
import type { FilterUsersOptions, GatehouseAdminApp, ServerUser } from "@gatehouse/js";

export const PAGE_SIZE = 25;
const EXPORT_PAGE_SIZE = 200;

export type UsersPage = {
  items: ServerUser[];
  nextCursor: string | null;
  total: number;
  /** Past the server's exact-count limit the total is an estimate, shown as "about N". */
  totalIsEstimate: boolean;
};

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

/** `filterUsers` options of a view. Owners see restricted users too: they manage them. */
function listOptions(view: UsersView, limit: number, cursor: string | undefined): FilterUsersOptions {
  const yes = (choice: "yes" | "no" | null) => (choice ? choice === "yes" : undefined);
  return {
    limit,
    orderBy: view.sort === "last_active" ? "lastActiveAt" : "signedUpAt",
    desc: view.descending,
    includeRestricted: true,
    anonymous: view.anonymous ?? undefined,
    query: view.query.trim() || undefined,
    primaryEmailVerified: yes(view.verified),
    restrictedByAdmin: yes(view.restricted),
    hasMfa: yes(view.mfa),
    authMethod: view.method ?? undefined,
    cursor,
  };
}

export async function listUsersPage(app: GatehouseAdminApp, view: UsersView): Promise<UsersPage> {
  const cursor = view.cursors[view.cursors.length - 1];
  const result = await app.filterUsers({ ...listOptions(view, PAGE_SIZE, cursor), includeTotal: true });
  return {
    items: result,
    nextCursor: result.nextCursor,
    total: result.totalCount ?? 0,
    totalIsEstimate: result.totalCountIsEstimate,
  };
}

/** Every user of the view (all pages), for the CSV export. */
export async function listAllUsers(
  app: GatehouseAdminApp,
  view: UsersView,
  onProgress?: (count: number) => void,
): Promise<ServerUser[]> {
  const all: ServerUser[] = [];
  let cursor: string | undefined;
  for (;;) {
    const result = await app.filterUsers(listOptions(view, EXPORT_PAGE_SIZE, cursor));
    all.push(...result);
    onProgress?.(all.length);
    if (!result.nextCursor) return all;
    cursor = result.nextCursor;
  }
}

export function signInMethods(user: ServerUser): string[] {
  const methods: string[] = [];
  if (user.hasPassword) methods.push("password");
  if (user.otpAuthEnabled) methods.push("otp");
  if (user.passkeyAuthEnabled) methods.push("passkey");
  for (const provider of user.oauthProviders) methods.push(provider.id);
  return methods;
}

/** A CSV field: quoted when it needs to be, and never a formula to a spreadsheet (=, +, -, @ lead with '). */
function csvField(value: string | number | boolean | null): string {
  if (value === null) return "";
  let text = String(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function usersCsv(users: ServerUser[]): string {
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
      user.primaryEmail,
      user.primaryEmailVerified,
      user.displayName,
      user.signedUpAt.toISOString(),
      user.lastActiveAt.toISOString(),
      user.isAnonymous,
      user.restrictedByAdmin,
      signInMethods(user).join(" "),
      user.isMultiFactorRequired,
    ]
      .map(csvField)
      .join(","),
  );
  return `${[header.join(","), ...lines].join("\r\n")}\r\n`;
}
