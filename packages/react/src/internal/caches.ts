import {
  type ActiveSession,
  type ApiKey,
  type ContactChannel,
  type CurrentUser,
  type GatehouseClientApp,
  gatehouseInternals,
  type Project,
  type Team,
  type Watchable,
} from "@gatehouse/js";

export type NotificationCategory = Awaited<ReturnType<CurrentUser["listNotificationCategories"]>>[number];
export type TeamUser = Awaited<ReturnType<Team["listUsers"]>>[number];
export type TeamInvitation = Awaited<ReturnType<Team["listInvitations"]>>[number];
export type TeamPermission = { id: string };

/** What each per-user list cache holds. */
type UserLists = {
  teams: Team[];
  contactChannels: ContactChannel[];
  sessions: ActiveSession[];
  apiKeys: ApiKey[];
  notificationCategories: NotificationCategory[];
};
export type UserListName = keyof UserLists;

/** What each per-team cache holds. */
type TeamLists = {
  teamUsers: TeamUser[];
  teamInvitations: TeamInvitation[];
  teamApiKeys: ApiKey[];
  teamPermissions: TeamPermission[];
};
export type TeamListName = keyof TeamLists;

const userFetchers: { [N in UserListName]: (user: CurrentUser) => Promise<UserLists[N]> } = {
  teams: (user) => user.listTeams(),
  contactChannels: (user) => user.listContactChannels(),
  sessions: (user) => user.getActiveSessions(),
  apiKeys: (user) => user.listApiKeys(),
  notificationCategories: (user) => user.listNotificationCategories(),
};

const teamFetchers: { [N in TeamListName]: (team: Team, user: CurrentUser) => Promise<TeamLists[N]> } = {
  teamUsers: (team) => team.listUsers(),
  teamInvitations: (team) => team.listInvitations(),
  teamApiKeys: (team) => team.listApiKeys(),
  teamPermissions: async (team, user) =>
    (await user.listPermissions(team)).map((permission) => ({ id: permission.id })),
};

function contextOf(app: GatehouseClientApp) {
  return app[gatehouseInternals].context;
}

/** The app's signed-in user as the caches see it (restricted users included: they still manage their account). */
function userWatchableFor(app: GatehouseClientApp) {
  return watchableMemo(app, "user:restricted", () => app.watchUser({ includeRestricted: true }));
}

async function currentUser(app: GatehouseClientApp, userId: string): Promise<CurrentUser | null> {
  const user = await userWatchableFor(app).get();
  return user !== null && user.id === userId ? user : null;
}

/**
 * The React layer's caches live in the app's own cache registry, so the SDK's writes (which invalidate every
 * user-data cache) refresh them as well, and every component of one app shares one fetch per list.
 */
function userListCache<N extends UserListName>(app: GatehouseClientApp, name: N) {
  return contextOf(app).cache(`react:${name}`, async (userId: string) => {
    const user = await currentUser(app, userId);
    return user ? await userFetchers[name](user) : ([] as unknown as UserLists[N]);
  });
}

function teamListCache<N extends TeamListName>(app: GatehouseClientApp, name: N) {
  return contextOf(app).cache(`react:${name}`, async (userId: string, teamId: string) => {
    const user = await currentUser(app, userId);
    const team = user ? (await userListCache(app, "teams").get([userId])).find((t) => t.id === teamId) : null;
    if (!user || !team) return [] as unknown as TeamLists[N];
    return await teamFetchers[name](team, user);
  });
}

const memos = new WeakMap<GatehouseClientApp, Map<string, Watchable<unknown>>>();

/** One watchable per app and name, so that hooks get the same object on every render. */
export function watchableMemo<T>(
  app: GatehouseClientApp,
  id: string,
  create: () => Watchable<T>,
): Watchable<T> {
  let byId = memos.get(app);
  if (!byId) {
    byId = new Map();
    memos.set(app, byId);
  }
  let watchable = byId.get(id) as Watchable<T> | undefined;
  if (!watchable) {
    watchable = create();
    byId.set(id, watchable as Watchable<unknown>);
  }
  return watchable;
}

function cacheWatchable<K extends readonly unknown[], V>(
  cache: {
    subscribe(key: K, listener: () => void): () => void;
    snapshot(key: K): ReturnType<Watchable<V>["getSnapshot"]>;
    get(key: K): Promise<V>;
  },
  key: K,
): Watchable<V> {
  return {
    subscribe: (listener) => cache.subscribe(key, listener),
    getSnapshot: () => cache.snapshot(key),
    get: () => cache.get(key),
  };
}

export function userListWatchable<N extends UserListName>(
  app: GatehouseClientApp,
  name: N,
  userId: string,
): Watchable<UserLists[N]> {
  return watchableMemo(app, `${name}:${userId}`, () => cacheWatchable(userListCache(app, name), [userId]));
}

export function teamListWatchable<N extends TeamListName>(
  app: GatehouseClientApp,
  name: N,
  userId: string,
  teamId: string,
): Watchable<TeamLists[N]> {
  return watchableMemo(app, `${name}:${userId}:${teamId}`, () =>
    cacheWatchable(teamListCache(app, name), [userId, teamId]),
  );
}

export function userWatchable(
  app: GatehouseClientApp,
  options: { includeRestricted: boolean; includeAnonymous: boolean },
) {
  return watchableMemo(app, `user:${options.includeRestricted}:${options.includeAnonymous}`, () =>
    app.watchUser(options),
  );
}

export function projectWatchable(app: GatehouseClientApp): Watchable<Project> {
  return watchableMemo(app, "project", () => app.watchProject());
}

/** Starts the fetches a screen will need at once, so its sections do not wait for each other. */
export function preloadUserLists(
  app: GatehouseClientApp,
  userId: string,
  names: readonly UserListName[],
): void {
  for (const name of names)
    userListCache(app, name)
      .get([userId])
      .catch(() => {});
}

export function preloadTeamLists(
  app: GatehouseClientApp,
  userId: string,
  teamId: string,
  names: readonly TeamListName[],
): void {
  for (const name of names)
    teamListCache(app, name)
      .get([userId, teamId])
      .catch(() => {});
}

/** After a write the SDK does not report (API keys, invitations, notification settings): read again. */
export function invalidateLists(app: GatehouseClientApp, ...names: (UserListName | TeamListName)[]): void {
  contextOf(app).invalidate(...names.map((name) => `react:${name}`));
}

/** After an error screen's "try again": forget failed reads so that they are fetched anew. */
export function invalidateEverything(app: GatehouseClientApp): void {
  const context = contextOf(app);
  context.invalidateUserData();
  context.invalidate("project");
}
