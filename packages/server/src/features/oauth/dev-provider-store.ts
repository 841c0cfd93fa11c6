/**
 * In-memory storage for the development OpenID provider (oidc-provider's adapter interface). The dev provider
 * lives as long as the process, so its sessions, codes and tokens do too; nothing here is worth persisting.
 * Clients are not stored: they are answered from `clients`, which the OAuth feature fills as it meets
 * providers and redirect URIs.
 */

type Entry = { payload: Record<string, unknown>; expiresAt: number };

export type DevClientRegistry = {
  /** client id → the client's metadata (without redirect URIs) and its registered redirect URIs. */
  clients: Map<string, { secret: string; redirectUris: Set<string> }>;
  /** How every client authenticates at the token endpoint. */
  tokenEndpointAuthMethod: "client_secret_post" | "client_secret_basic";
};

/** Expired entries are swept every this many writes, so that the maps cannot grow without bound. */
const SWEEP_EVERY = 200;

export function createDevProviderAdapter(registry: DevClientRegistry) {
  const entries = new Map<string, Entry>();
  const sessionByUid = new Map<string, string>();
  const grantMembers = new Map<string, Set<string>>();
  let writes = 0;

  const sweep = () => {
    const now = Date.now();
    for (const [key, entry] of entries) if (entry.expiresAt <= now) entries.delete(key);
  };

  const live = (key: string): Entry | undefined => {
    const entry = entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= Date.now()) {
      entries.delete(key);
      return undefined;
    }
    return entry;
  };

  return (model: string) => {
    const keyOf = (id: string) => `${model}:${id}`;

    if (model === "Client") {
      return {
        async find(id: string) {
          const client = registry.clients.get(id);
          if (!client) return undefined;
          return {
            client_id: id,
            client_secret: client.secret,
            redirect_uris: [...client.redirectUris].sort(),
            grant_types: ["authorization_code", "refresh_token"],
            response_types: ["code"],
            token_endpoint_auth_method: registry.tokenEndpointAuthMethod,
          };
        },
        async upsert() {},
        async destroy() {},
        async consume() {},
        async findByUid() {
          return undefined;
        },
        async findByUserCode() {
          return undefined;
        },
        async revokeByGrantId() {},
      };
    }

    return {
      async upsert(id: string, payload: Record<string, unknown>, expiresIn?: number) {
        const key = keyOf(id);
        entries.set(key, {
          payload,
          expiresAt: typeof expiresIn === "number" ? Date.now() + expiresIn * 1000 : Number.POSITIVE_INFINITY,
        });
        if (model === "Session" && typeof payload.uid === "string") sessionByUid.set(payload.uid, id);
        if (typeof payload.grantId === "string") {
          const members = grantMembers.get(payload.grantId) ?? new Set<string>();
          members.add(key);
          grantMembers.set(payload.grantId, members);
        }
        writes += 1;
        if (writes % SWEEP_EVERY === 0) sweep();
      },
      async find(id: string) {
        return live(keyOf(id))?.payload;
      },
      async findByUid(uid: string) {
        const id = sessionByUid.get(uid);
        return id ? live(keyOf(id))?.payload : undefined;
      },
      async findByUserCode() {
        return undefined;
      },
      async consume(id: string) {
        const entry = live(keyOf(id));
        if (entry) entry.payload.consumed = Math.floor(Date.now() / 1000);
      },
      async destroy(id: string) {
        entries.delete(keyOf(id));
      },
      async revokeByGrantId(grantId: string) {
        for (const key of grantMembers.get(grantId) ?? []) entries.delete(key);
        grantMembers.delete(grantId);
      },
    };
  };
}
