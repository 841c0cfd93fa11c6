/**
 * The admin's users list with Gatehouse's filters (DECISIONS.md, "the users list"): `GET /users` plus
 * `primary_email_verified`, `restricted_by_admin`, `has_mfa`, `auth_method`, `only_anonymous`, ordering by last
 * activity and `include_total`. `listUsers` keeps the reference SDK's options; this is a separate method so that a
 * project's own backend code written against the reference is not offered options it would not find there.
 */
import type { WireUserPage } from "@gatehouse/shared";
import { call, type Scope, withQuery } from "../objects/scope.ts";
import { type ServerUser, serverUserFromJson } from "../objects/server-user.ts";

export type UserSignInMethod = "password" | "otp" | "passkey" | "oauth";

export type FilterUsersOptions = {
  /** The `nextCursor` of the previous page. */
  cursor?: string;
  limit?: number;
  orderBy?: "signedUpAt" | "lastActiveAt";
  desc?: boolean;
  /** Free text over display name and email, and an exact id match. */
  query?: string;
  /** "include": anonymous users too; "only": nobody else. */
  anonymous?: "include" | "only";
  /** Also list restricted users (needed to filter on `restrictedByAdmin: true`). */
  includeRestricted?: boolean;
  primaryEmailVerified?: boolean;
  restrictedByAdmin?: boolean;
  /** Whether the user has a second factor. */
  hasMfa?: boolean;
  /** Users who can sign in this way. */
  authMethod?: UserSignInMethod;
  /** Also count every user the filter matches, whatever the page (`totalCount`). */
  includeTotal?: boolean;
};

export type FilteredUsers = ServerUser[] & {
  nextCursor: string | null;
  /** The filter's count over all pages; null unless `includeTotal` was asked for. */
  totalCount: number | null;
  /** True when `totalCount` is an estimate (the server counts exactly up to a limit, 10,000 by default). */
  totalCountIsEstimate: boolean;
};

export function adminUserMethods(scope: Scope) {
  return {
    /** A page of the project's users matching the filters. */
    async filterUsers(options: FilterUsersOptions = {}): Promise<FilteredUsers> {
      const result = await call<WireUserPage>(
        scope,
        withQuery("/users", {
          cursor: options.cursor,
          limit: options.limit,
          order_by: { signedUpAt: "signed_up_at", lastActiveAt: "last_active_at" }[
            options.orderBy ?? "signedUpAt"
          ],
          desc: options.desc,
          query: options.query,
          include_anonymous: options.anonymous ? true : undefined,
          only_anonymous: options.anonymous === "only" ? true : undefined,
          include_restricted: options.includeRestricted,
          primary_email_verified: options.primaryEmailVerified,
          restricted_by_admin: options.restrictedByAdmin,
          has_mfa: options.hasMfa,
          auth_method: options.authMethod,
          include_total: options.includeTotal,
        }),
      );
      const users = result.items.map((item) => serverUserFromJson(scope.ctx, item));
      return Object.assign(users, {
        nextCursor: result.pagination.next_cursor ?? null,
        totalCount: typeof result.total_count === "number" ? result.total_count : null,
        totalCountIsEstimate: result.total_count_is_estimate === true,
      });
    },
  };
}
