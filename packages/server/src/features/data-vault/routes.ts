/**
 * `POST /data-vault/stores/{id}/{get,set}` (PROTOCOL-EXTRA §6.5), servers and admins only. Stores are declared in
 * the config (`dataVault.stores.<id>`); both values are opaque to the server, which seals them once more at rest.
 */
import { z } from "zod";
import { storableText } from "../../fields/text.ts";
import { routeGroup } from "../../http/route.ts";
import { getVaultValue, requireStore, setVaultValue } from "./service.ts";

const tags = ["Data vault"];
const serverOrAdmin = routeGroup({ tags, access: ["server", "admin"] });

const storeParams = z.strictObject({ id: z.string().max(100) });
/** The SDK's hashed key is a base64 digest; anything longer than a few digests is not one. */
const hashedKeyField = storableText(1000).pipe(z.string().min(1));
/** The SDK's ciphertext of one value; the request body limit (2 MiB) bounds it besides. */
const encryptedValueField = storableText(1_000_000);

export const dataVaultRoutes = [
  serverOrAdmin.post("/data-vault/stores/:id/set", {
    summary: "Store a value under a hashed key (replacing any value there)",
    request: {
      params: storeParams,
      body: z.strictObject({ hashed_key: hashedKeyField, encrypted_value: encryptedValueField }),
    },
    response: { body: z.object({ success: z.literal(true) }) },
    handler: async ({ deps, auth, params, body }) => {
      requireStore(auth.config, params.id);
      await setVaultValue(
        deps,
        { projectId: auth.project.id, storeId: params.id, hashedKey: body.hashed_key },
        body.encrypted_value,
      );
      return { body: { success: true as const } };
    },
  }),
  serverOrAdmin.post("/data-vault/stores/:id/get", {
    summary: "Read the value stored under a hashed key",
    request: { params: storeParams, body: z.strictObject({ hashed_key: hashedKeyField }) },
    response: { body: z.object({ encrypted_value: z.string() }) },
    handler: async ({ deps, auth, params, body }) => {
      requireStore(auth.config, params.id);
      const value = await getVaultValue(deps, {
        projectId: auth.project.id,
        storeId: params.id,
        hashedKey: body.hashed_key,
      });
      return { body: { encrypted_value: value } };
    },
  }),
];
