import type {
  ActiveSession,
  ApiKey,
  ContactChannel,
  CurrentUser,
  CustomerProductsList,
  GatehouseClientApp,
  Item,
  Project,
  Team,
  Watchable,
} from "@gatehouse/js";
import { KnownError } from "@gatehouse/js";
import { use, useRef } from "react";
import { useGatehouseContext } from "./context.ts";
import {
  type NotificationCategory,
  projectWatchable,
  type TeamInvitation,
  type TeamPermission,
  type TeamUser,
  teamListWatchable,
  userListWatchable,
  userWatchable,
} from "./internal/caches.ts";
import { itemWatchable, productsWatchable } from "./internal/payment-caches.ts";
import { NEVER, useWatchable } from "./internal/suspense.ts";

export type UseUserOptions = {
  /**
   * Without a signed-in user: `return-null` (default), `throw`, `redirect` to sign-in (and come back), or
   * `anonymous`: sign up an anonymous user, and count anonymous users as signed in.
   */
  or?: "redirect" | "throw" | "return-null" | "anonymous";
  /** Count restricted users (e.g. e-mail not verified yet) as signed in. */
  includeRestricted?: boolean;
};

/** The client app given to the provider. */
export function useGatehouseApp(): GatehouseClientApp {
  return useGatehouseContext().app;
}

const redirecting = new WeakSet<GatehouseClientApp>();
const anonymousSignUps = new WeakMap<GatehouseClientApp, Promise<CurrentUser>>();

/**
 * Sends the visitor to sign-in, unless they have left `page` meanwhile: a page that just signed the user out
 * (and is going to the after-sign-out page) must not be pulled back to sign-in by a component still on screen.
 */
function redirectToSignInOnce(app: GatehouseClientApp, page: string): void {
  if (redirecting.has(app)) return;
  redirecting.add(app);
  // Outside render: navigating updates other components' state.
  setTimeout(() => {
    if (typeof window !== "undefined" && window.location.href !== page) {
      redirecting.delete(app);
      return;
    }
    app
      .redirectToSignIn({ replace: true })
      .catch(() => {})
      .finally(() => redirecting.delete(app));
  }, 0);
}

function anonymousSignUp(app: GatehouseClientApp): Promise<CurrentUser> {
  let promise = anonymousSignUps.get(app);
  if (!promise) {
    promise = app.getUser({ or: "anonymous" });
    anonymousSignUps.set(app, promise);
    const forget = () => anonymousSignUps.delete(app);
    promise.then(forget, forget);
  }
  return promise;
}

/**
 * The signed-in user, kept up to date (sign-in, sign-out, other tabs, writes). Suspends until the first read
 * is done; wrap the component in `<Suspense>`.
 */
export function useUser(options: UseUserOptions & { or: "redirect" | "throw" | "anonymous" }): CurrentUser;
export function useUser(options?: UseUserOptions): CurrentUser | null;
export function useUser(options: UseUserOptions = {}): CurrentUser | null {
  const app = useGatehouseApp();
  // The page this component was first shown on (see redirectToSignInOnce).
  const page = useRef(typeof window === "undefined" ? "" : window.location.href);
  const includeAnonymous = options.or === "anonymous";
  const user = useWatchable(
    userWatchable(app, {
      includeAnonymous,
      includeRestricted: options.includeRestricted ?? includeAnonymous,
    }),
  );
  if (user !== null) return user;
  switch (options.or) {
    case "redirect":
      redirectToSignInOnce(app, page.current);
      return use(NEVER);
    case "throw":
      throw new KnownError(
        "USER_AUTHENTICATION_REQUIRED",
        undefined,
        "User is not signed in but useUser was called with { or: 'throw' }.",
      );
    case "anonymous":
      return use(anonymousSignUp(app));
    default:
      return null;
  }
}

/** The project as clients see it: name and the sign-in methods it enables. */
export function useProject(): Project {
  return useWatchable(projectWatchable(useGatehouseApp()));
}

/** The signed-in user, counting restricted ones, for hooks that list what belongs to them. */
function useListOwner(): CurrentUser | null {
  return useUser({ includeRestricted: true });
}

const EMPTY: never[] = [];
const EMPTY_SNAPSHOT = { status: "ok", data: EMPTY } as const;
/** What a list reads as when nobody is signed in: empty, without asking the server. */
const EMPTY_LIST: Watchable<never[]> = {
  subscribe: () => () => {},
  getSnapshot: () => EMPTY_SNAPSHOT,
  get: async () => EMPTY,
};

function useUserList<T>(name: Parameters<typeof userListWatchable>[1]): T {
  const app = useGatehouseApp();
  const user = useListOwner();
  return useWatchable(user ? userListWatchable(app, name, user.id) : EMPTY_LIST) as T;
}

/** The teams the signed-in user belongs to ([] when signed out). */
export function useTeams(): Team[] {
  return useUserList<Team[]>("teams");
}

/** The signed-in user's e-mail addresses. */
export function useContactChannels(): ContactChannel[] {
  return useUserList<ContactChannel[]>("contactChannels");
}

/** The signed-in user's sessions (devices), the current one marked. */
export function useSessions(): ActiveSession[] {
  return useUserList<ActiveSession[]>("sessions");
}

/** The signed-in user's own API keys. */
export function useApiKeys(): ApiKey[] {
  return useUserList<ApiKey[]>("apiKeys");
}

/** Which e-mails the signed-in user receives. */
export function useNotificationCategories(): NotificationCategory[] {
  return useUserList<NotificationCategory[]>("notificationCategories");
}

function useTeamList<T>(name: Parameters<typeof teamListWatchable>[1], team: { id: string }): T {
  const app = useGatehouseApp();
  const user = useListOwner();
  return useWatchable(user ? teamListWatchable(app, name, user.id, team.id) : EMPTY_LIST) as T;
}

/** The members of one of the user's teams. */
export function useTeamMembers(team: { id: string }): TeamUser[] {
  return useTeamList<TeamUser[]>("teamUsers", team);
}

/** The pending invitations of one of the user's teams. */
export function useTeamInvitations(team: { id: string }): TeamInvitation[] {
  return useTeamList<TeamInvitation[]>("teamInvitations", team);
}

/** The API keys of one of the user's teams. */
export function useTeamApiKeys(team: { id: string }): ApiKey[] {
  return useTeamList<ApiKey[]>("teamApiKeys", team);
}

/** The signed-in user's permissions in a team (contained permissions included). */
export function usePermissions(team: { id: string }): TeamPermission[] {
  return useTeamList<TeamPermission[]>("teamPermissions", team);
}

/** Whether the signed-in user holds `permissionId` in `team`. */
export function usePermission(team: { id: string }, permissionId: string): boolean {
  return usePermissions(team).some((permission) => permission.id === permissionId);
}

/** Whose payments a hook reads: the signed-in user's (by default), or one of their teams' (needs team_admin). */
export type PaymentsHookOptions = { team?: { id: string } };

const NO_ITEM_SNAPSHOT = { status: "ok", data: null } as const;
const NO_ITEM: Watchable<null> = {
  subscribe: () => () => {},
  getSnapshot: () => NO_ITEM_SNAPSHOT,
  get: async () => null,
};
const NO_PRODUCTS_SNAPSHOT = {
  status: "ok",
  data: Object.assign([] as never[], { nextCursor: null }),
} as const;
const NO_PRODUCTS: Watchable<CustomerProductsList> = {
  subscribe: () => () => {},
  getSnapshot: () => NO_PRODUCTS_SNAPSHOT,
  get: async () => NO_PRODUCTS_SNAPSHOT.data,
};

/**
 * The quantity of an item the signed-in user (or `team`) holds, kept up to date after the SDK's payments writes;
 * null when signed out. An unknown item or a team the user may not read throws to the nearest error boundary.
 */
export function useItem(itemId: string, options: PaymentsHookOptions = {}): Item | null {
  const app = useGatehouseApp();
  const user = useListOwner();
  return useWatchable(user ? itemWatchable(app, user.id, options.team?.id ?? null, itemId) : NO_ITEM);
}

/** The products the signed-in user (or `team`) holds, a page at a time (empty when signed out). */
export function useProducts(
  options: PaymentsHookOptions & { cursor?: string; limit?: number } = {},
): CustomerProductsList {
  const app = useGatehouseApp();
  const user = useListOwner();
  return useWatchable(
    user
      ? productsWatchable(
          app,
          user.id,
          options.team?.id ?? null,
          options.cursor ?? null,
          options.limit ?? null,
        )
      : NO_PRODUCTS,
  );
}
