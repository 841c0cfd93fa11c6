import type { WireContactChannelCreate, WireContactChannelUpdate } from "@gatehouse/shared";
import { knownError } from "@gatehouse/shared";
import { z } from "zod";
import type { Database } from "../../db/index.ts";
import { resolveUserId } from "../../http/current-user.ts";
import type { RequestAuth } from "../../http/request-auth.ts";
import { type AnyRoute, routeGroup } from "../../http/route.ts";
import { schemaError } from "../../http/schema-error.ts";
import { wireRequest } from "../../http/wire-schema.ts";
import { findUser } from "../users/service.ts";
import {
  contactChannelNotFound,
  createContactChannel,
  deleteContactChannel,
  findContactChannel,
  listContactChannels,
  updateContactChannel,
} from "./service.ts";
import { verificationRoutes } from "./verification-routes.ts";
import { contactChannelSchema, contactChannelView, emailAddressSchema } from "./views.ts";

const tags = ["Contact channels"];
const anyKey = routeGroup({ tags, access: ["client", "server", "admin"] });

const channelParams = z.strictObject({ user_id: z.string(), contact_channel_id: z.string() });

const createBody = wireRequest<WireContactChannelCreate>()(
  z.strictObject({
    user_id: z.string(),
    value: emailAddressSchema,
    type: z.literal("email"),
    used_for_auth: z.boolean(),
    is_primary: z.boolean().optional(),
    /** Server and admin only. */
    is_verified: z.boolean().optional(),
  }),
);

const updateBody = wireRequest<WireContactChannelUpdate>()(
  z.strictObject({
    value: emailAddressSchema.optional(),
    type: z.literal("email").optional(),
    used_for_auth: z.boolean().optional(),
    is_primary: z.boolean().optional(),
    /** Server and admin only. */
    is_verified: z.boolean().optional(),
  }),
);

/** Verification is proven by a code; a client claiming it is refused as the unknown property it is to clients. */
function refuseClientVerification(auth: RequestAuth, request: Request, body: { is_verified?: boolean }) {
  if (auth.accessType !== "client" || body.is_verified === undefined) return;
  throw schemaError(request.method, new URL(request.url).pathname, "body", [
    { code: "unrecognized_keys", keys: ["is_verified"], path: [], message: "", input: body },
  ]);
}

/** The user a server or admin names must exist in this project; a client is always itself. */
async function requireExistingUser(db: Database, auth: RequestAuth, userId: string, missing: () => Error) {
  if (auth.accessType === "client") return;
  if (!(await findUser(db, auth.project.id, userId))) throw missing();
}

const crudRoutes = [
  anyKey.get("/contact-channels", {
    summary: "List a user's contact channels, oldest first",
    request: {
      query: z.strictObject({ user_id: z.string(), contact_channel_id: z.string().optional() }),
    },
    response: { body: z.object({ items: z.array(contactChannelSchema), is_paginated: z.literal(false) }) },
    handler: async ({ deps, auth, query }) => {
      const userId = resolveUserId(auth, query.user_id);
      await requireExistingUser(deps.db, auth, userId, () => knownError("USER_NOT_FOUND"));
      const rows = await listContactChannels(deps.db, auth.project.id, userId, query.contact_channel_id);
      return { body: { items: rows.map(contactChannelView), is_paginated: false } };
    },
  }),
  anyKey.post("/contact-channels", {
    summary: "Add a contact channel to a user",
    request: { body: createBody },
    response: { status: 201, body: contactChannelSchema },
    handler: async ({ deps, auth, body, request }) => {
      refuseClientVerification(auth, request, body);
      const userId = resolveUserId(auth, body.user_id);
      await requireExistingUser(deps.db, auth, userId, () =>
        knownError("USER_ID_DOES_NOT_EXIST", { user_id: body.user_id }),
      );
      const row = await createContactChannel(deps.db, auth.project.id, userId, {
        value: body.value,
        usedForAuth: body.used_for_auth,
        isPrimary: body.is_primary,
        isVerified: body.is_verified,
      });
      return { body: contactChannelView(row) };
    },
  }),
  anyKey.get("/contact-channels/:user_id/:contact_channel_id", {
    summary: "Read one contact channel",
    request: { params: channelParams },
    response: { body: contactChannelSchema },
    handler: async ({ deps, auth, params }) => {
      const userId = resolveUserId(auth, params.user_id);
      const row = await findContactChannel(deps.db, auth.project.id, userId, params.contact_channel_id);
      if (!row) throw contactChannelNotFound();
      return { body: contactChannelView(row) };
    },
  }),
  anyKey.patch("/contact-channels/:user_id/:contact_channel_id", {
    summary: "Update a contact channel (a new value is unverified again)",
    request: { params: channelParams, body: updateBody },
    response: { body: contactChannelSchema },
    handler: async ({ deps, auth, params, body, request }) => {
      refuseClientVerification(auth, request, body);
      const userId = resolveUserId(auth, params.user_id);
      const row = await updateContactChannel(deps.db, auth.project.id, userId, params.contact_channel_id, {
        value: body.value,
        usedForAuth: body.used_for_auth,
        isPrimary: body.is_primary,
        isVerified: body.is_verified,
      });
      return { body: contactChannelView(row) };
    },
  }),
  anyKey.delete("/contact-channels/:user_id/:contact_channel_id", {
    summary: "Remove a contact channel (removing the primary one leaves the user without a primary email)",
    request: { params: channelParams },
    response: { body: z.object({ success: z.literal(true) }) },
    handler: async ({ deps, auth, params }) => {
      const userId = resolveUserId(auth, params.user_id);
      await deleteContactChannel(deps.db, auth.project.id, userId, params.contact_channel_id);
      return { body: { success: true } };
    },
  }),
];

export const contactChannelRoutes: AnyRoute[] = [...crudRoutes, ...verificationRoutes];
