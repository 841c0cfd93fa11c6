/**
 * The payment emails (PROTOCOL-EXTRA §2.6): a receipt when Stripe took a payment, a notice when a subscription's
 * payment failed for good, rendered from the project's `payment_receipt` and `payment_failed` templates. They go to
 * the user of a user customer, or to every member of a team customer holding `team_admin`; custom customers get none
 * (Gatehouse has no address for them). Each is sent once per key (a checkout, an invoice), however often Stripe
 * delivers the event: the key is claimed in `payment_notifications` first.
 */
import { TEAM_ADMIN_PERMISSION_ID } from "../../config/index.ts";
import type { AppDeps } from "../../deps.ts";
import { type BuiltInEmail, sendBuiltInEmail } from "../emails/built-in.ts";
import { listTeamPermissions } from "../permissions/service.ts";
import { getRenderedConfig } from "../projects/config-store.ts";
import { findProject } from "../projects/service.ts";
import type { Customer } from "./catalogue.ts";
import { paymentNotifications } from "./schema.ts";

export type PaymentEmail = Extract<BuiltInEmail, { kind: "payment_receipt" | "payment_failed" }>;

/** `"USD 29.00"`, the protocol's format of an amount in an email, from Stripe's minor units. */
export function formatUsd(cents: number): string {
  return `USD ${(cents / 100).toFixed(2)}`;
}

async function recipientUserIds(deps: AppDeps, projectId: string, customer: Customer): Promise<string[]> {
  if (customer.type === "user") return [customer.id];
  if (customer.type === "custom") return [];
  const config = await getRenderedConfig(deps, projectId);
  const admins = await listTeamPermissions(deps.db, {
    projectId,
    config,
    teamId: customer.id,
    permissionId: TEAM_ADMIN_PERMISSION_ID,
    recursive: true,
  });
  return [...new Set(admins.map((grant) => grant.user_id))];
}

/** Sends a payment email to the customer's people, unless one was sent for `key` already. */
export async function sendPaymentEmail(
  deps: AppDeps,
  projectId: string,
  customer: Customer,
  key: string,
  email: PaymentEmail,
): Promise<void> {
  const claimed = await deps.db
    .insert(paymentNotifications)
    .values({ projectId, key, createdAt: new Date() })
    .onConflictDoNothing()
    .returning({ key: paymentNotifications.key });
  if (claimed.length === 0) return;
  const project = await findProject(deps.db, projectId);
  if (!project) return;
  const config = await getRenderedConfig(deps, projectId);
  for (const userId of await recipientUserIds(deps, projectId, customer)) {
    await sendBuiltInEmail(deps, project, { ...email, userId, config });
  }
}
