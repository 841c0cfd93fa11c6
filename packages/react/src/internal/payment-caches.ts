import {
  type CustomerProductsList,
  type GatehouseClientApp,
  gatehouseInternals,
  type Item,
  type Watchable,
} from "@gatehouse/js";
import { watchableMemo } from "./caches.ts";

/**
 * The payments reads of the hooks (an item's quantity, the products held), for the signed-in user or one of their
 * teams. Like the other React caches they live in the app's cache registry, so every SDK write (a cancelled
 * subscription, a grant or quantity change made through this app) refreshes them. The signed-in user's id is part
 * of each key: another user signing in never sees the previous user's figures.
 */
function itemCache(app: GatehouseClientApp) {
  return app[gatehouseInternals].context.cache(
    "react:paymentItem",
    (userId: string, teamId: string | null, itemId: string) =>
      app.getItem(teamId === null ? { userId, itemId } : { teamId, itemId }),
  );
}

function productsCache(app: GatehouseClientApp) {
  return app[gatehouseInternals].context.cache(
    "react:paymentProducts",
    (userId: string, teamId: string | null, cursor: string | null, limit: number | null) =>
      app.listProducts({
        ...(teamId === null ? { userId } : { teamId }),
        ...(cursor === null ? {} : { cursor }),
        ...(limit === null ? {} : { limit }),
      }),
  );
}

export function itemWatchable(
  app: GatehouseClientApp,
  userId: string,
  teamId: string | null,
  itemId: string,
): Watchable<Item> {
  const key: [string, string | null, string] = [userId, teamId, itemId];
  return watchableMemo(app, `paymentItem:${JSON.stringify(key)}`, () => {
    const cache = itemCache(app);
    return {
      subscribe: (listener) => cache.subscribe(key, listener),
      getSnapshot: () => cache.snapshot(key),
      get: () => cache.get(key),
    };
  });
}

export function productsWatchable(
  app: GatehouseClientApp,
  userId: string,
  teamId: string | null,
  cursor: string | null,
  limit: number | null,
): Watchable<CustomerProductsList> {
  const key: [string, string | null, string | null, number | null] = [userId, teamId, cursor, limit];
  return watchableMemo(app, `paymentProducts:${JSON.stringify(key)}`, () => {
    const cache = productsCache(app);
    return {
      subscribe: (listener) => cache.subscribe(key, listener),
      getSnapshot: () => cache.snapshot(key),
      get: () => cache.get(key),
    };
  });
}
