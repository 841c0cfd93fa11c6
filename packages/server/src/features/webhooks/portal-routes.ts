/**
 * The webhook portal's API (Gatehouse's own: the protocol leaves endpoint management to its webhook service).
 * Every route takes the portal token (`authorization: Bearer <token from POST /webhooks/svix-token>`) or the
 * project's admin credentials; the token names its project, and every query is filtered by that project.
 */
import type { WireWebhookEndpointCreated } from "@gatehouse/shared";
import { z } from "zod";
import type { AppDeps } from "../../deps.ts";
import { storableText } from "../../fields/text.ts";
import type { RequestAuth } from "../../http/request-auth.ts";
import { routeGroup } from "../../http/route.ts";
import { StatusError } from "../../http/status-error.ts";
import { wire } from "../../http/wire-schema.ts";
import { WEBHOOK_EVENT_TYPES } from "../events/record.ts";
import {
  createEndpoint,
  deleteEndpoint,
  getEndpoint,
  listDeliveries,
  listEndpoints,
  queueTestMessage,
  resendDelivery,
  rotateEndpointSecret,
  updateEndpoint,
} from "./endpoints.ts";
import { verifyPortalToken } from "./portal-token.ts";
import { deliverySchema, deliveryView, EVENT_TYPE_LIST, endpointSchema, endpointView } from "./views.ts";

const tags = ["Webhook portal"];
const admin = routeGroup({ tags, access: ["admin"] });

/** The portal token as a caller: admin access to this project's webhook routes, and only to those. */
async function portalAuth(deps: AppDeps, token: string): Promise<RequestAuth> {
  const projectId = verifyPortalToken(deps.env, token);
  const cached = projectId === null ? null : await deps.projectCache.get(projectId);
  if (!cached) throw new StatusError(401, "The webhook portal token is invalid or has expired.");
  return {
    project: cached.project,
    config: cached.config,
    branchId: "main",
    accessType: "admin",
    user: null,
    userRelations: null,
    accessToken: null,
    projectOwner: null,
  };
}

const urlField = z
  .url()
  .max(2000)
  .transform((value) => new URL(value).href);
const endpointFields = {
  url: urlField,
  description: storableText(1000).optional(),
  /** Empty or left out: every event type. */
  event_types: z
    .array(z.enum(WEBHOOK_EVENT_TYPES))
    .max(WEBHOOK_EVENT_TYPES.length * 2)
    .optional(),
  enabled: z.boolean().optional(),
};
const endpointParams = z.strictObject({ endpoint_id: z.uuid() });
const created = wire<WireWebhookEndpointCreated>()(endpointSchema.extend({ secret: z.string() }));

export const portalRoutes = [
  admin.get("/webhooks-portal/event-types", {
    summary: "The event types an endpoint can subscribe to",
    bearerAuth: portalAuth,
    response: { body: z.object({ items: z.array(z.object({ name: z.string(), description: z.string() })) }) },
    handler: async () => ({ body: { items: EVENT_TYPE_LIST } }),
  }),
  admin.get("/webhooks-portal/endpoints", {
    summary: "The project's webhook endpoints",
    bearerAuth: portalAuth,
    response: { body: z.object({ items: z.array(endpointSchema) }) },
    handler: async ({ deps, auth }) => ({
      body: { items: (await listEndpoints(deps, auth.project.id)).map(endpointView) },
    }),
  }),
  admin.post("/webhooks-portal/endpoints", {
    summary: "Add an endpoint; its signing secret is in this answer only",
    bearerAuth: portalAuth,
    request: { body: z.strictObject(endpointFields) },
    response: { status: 201, body: created },
    handler: async ({ deps, auth, body }) => {
      const { row, secret } = await createEndpoint(deps, auth.project.id, body);
      return { status: 201, body: { ...endpointView(row), secret } };
    },
  }),
  admin.get("/webhooks-portal/endpoints/:endpoint_id", {
    summary: "One endpoint",
    bearerAuth: portalAuth,
    request: { params: endpointParams },
    response: { body: endpointSchema },
    handler: async ({ deps, auth, params }) => ({
      body: endpointView(await getEndpoint(deps, auth.project.id, params.endpoint_id)),
    }),
  }),
  admin.patch("/webhooks-portal/endpoints/:endpoint_id", {
    summary: "Change an endpoint's URL, description, event types or enabled state",
    bearerAuth: portalAuth,
    request: {
      params: endpointParams,
      body: z.strictObject({ ...endpointFields, url: urlField.optional() }),
    },
    response: { body: endpointSchema },
    handler: async ({ deps, auth, params, body }) => ({
      body: endpointView(await updateEndpoint(deps, auth.project.id, params.endpoint_id, body)),
    }),
  }),
  admin.delete("/webhooks-portal/endpoints/:endpoint_id", {
    summary: "Delete an endpoint and its deliveries",
    bearerAuth: portalAuth,
    request: { params: endpointParams },
    response: { body: z.object({ success: z.literal(true) }) },
    handler: async ({ deps, auth, params }) => {
      await deleteEndpoint(deps, auth.project.id, params.endpoint_id);
      return { body: { success: true } };
    },
  }),
  admin.post("/webhooks-portal/endpoints/:endpoint_id/rotate-secret", {
    summary: "Replace an endpoint's signing secret; the new one is in this answer only",
    bearerAuth: portalAuth,
    request: { params: endpointParams },
    response: { body: z.object({ secret: z.string() }) },
    handler: async ({ deps, auth, params }) => ({
      body: { secret: await rotateEndpointSecret(deps, auth.project.id, params.endpoint_id) },
    }),
  }),
  admin.get("/webhooks-portal/endpoints/:endpoint_id/deliveries", {
    summary: "An endpoint's recent deliveries, newest first, with their attempts",
    bearerAuth: portalAuth,
    request: {
      params: endpointParams,
      query: z.strictObject({ limit: z.coerce.number().int().min(1).max(200).optional() }),
    },
    response: { body: z.object({ items: z.array(deliverySchema) }) },
    handler: async ({ deps, auth, params, query }) => {
      const rows = await listDeliveries(deps, auth.project.id, params.endpoint_id, query.limit ?? 50);
      return { body: { items: rows.map(deliveryView) } };
    },
  }),
  admin.post("/webhooks-portal/endpoints/:endpoint_id/test", {
    summary: "Queue a stack.test message to this endpoint (listed with its deliveries)",
    bearerAuth: portalAuth,
    request: { params: endpointParams },
    response: { status: 201, body: deliverySchema },
    handler: async ({ deps, auth, params }) => ({
      status: 201,
      body: deliveryView(await queueTestMessage(deps, auth.project.id, params.endpoint_id)),
    }),
  }),
  admin.post("/webhooks-portal/deliveries/:delivery_id/resend", {
    summary: "Send a finished delivery again (same message id), as a new attempt due now",
    bearerAuth: portalAuth,
    request: { params: z.strictObject({ delivery_id: z.uuid() }) },
    response: { body: deliverySchema },
    handler: async ({ deps, auth, params }) => ({
      body: deliveryView(await resendDelivery(deps, auth.project.id, params.delivery_id)),
    }),
  }),
];
