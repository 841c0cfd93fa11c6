/**
 * Unsubscribe links (PROTOCOL-EXTRA §1.11): every email of a category a user can turn off carries one, in the
 * theme's footer and in the `List-Unsubscribe` headers. The link is a one-time code valid for 30 days; opening it
 * (GET) or a mail client's one-click request (POST, RFC 8058) turns the category off for that user.
 */
import { KnownError, knownError } from "@gatehouse/shared";
import { z } from "zod";
import { SECURE_TOKEN_LENGTH } from "../../crypto/index.ts";
import type { AppDeps } from "../../deps.ts";
import { escapeHtml } from "../../http/html.ts";
import { HTML_SECURITY_HEADERS } from "../../http/html-security-headers.ts";
import { defineRoute, routeGroup } from "../../http/route.ts";
import { StatusError } from "../../http/status-error.ts";
import { findCategoryById, type NotificationCategory } from "../notifications/categories.ts";
import { setNotificationPreference } from "../notifications/service.ts";
import { createVerificationCode, markCodeUsed, openCode } from "../verification-codes/service.ts";

const UNSUBSCRIBE_LINK_LIFETIME_MS = 30 * 24 * 3600 * 1000;

/** A fresh unsubscribe link for one user and category. */
export async function createUnsubscribeLink(
  deps: Pick<AppDeps, "db" | "env">,
  projectId: string,
  userId: string,
  category: NotificationCategory,
): Promise<string> {
  const { code } = await createVerificationCode(deps.db, {
    projectId,
    purpose: "unsubscribe",
    data: { user_id: userId, notification_category_id: category.id },
    lifetimeMs: UNSUBSCRIBE_LINK_LIFETIME_MS,
  });
  return `${deps.env.baseUrl}/api/v1/emails/unsubscribe-link?code=${code}`;
}

function page(message: string, status = 200): Response {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Email preferences</title></head><body style="font-family: system-ui, sans-serif; max-width: 32rem; margin: 4rem auto; padding: 0 1rem; line-height: 1.5"><p>${escapeHtml(message)}</p></body></html>`;
  return new Response(html, {
    status,
    headers: {
      ...HTML_SECURITY_HEADERS,
      "content-type": "text/html; charset=utf-8",
      "cache-control": "no-store",
    },
  });
}

async function unsubscribe(deps: AppDeps, code: string): Promise<Response> {
  if (code.length !== SECURE_TOKEN_LENGTH) {
    throw new StatusError(400, `An unsubscribe code has ${SECURE_TOKEN_LENGTH} characters.`);
  }
  // The link carries only the code: its project is the code's. A used link says so on the page.
  const row = await openCode(deps.db, { projectId: null, purpose: "unsubscribe", code, acceptUsed: true });
  const data = row.data as { user_id?: unknown; notification_category_id?: unknown };
  const category =
    typeof data.notification_category_id === "string"
      ? findCategoryById(data.notification_category_id)
      : undefined;
  if (row.usedAt) {
    return page(`You were already unsubscribed from ${category?.name.toLowerCase() ?? "these"} emails.`);
  }
  if (typeof data.user_id !== "string" || !category) throw knownError("VERIFICATION_CODE_NOT_FOUND");
  try {
    await setNotificationPreference(deps.db, row.projectId, data.user_id, category.id, false);
  } catch (error) {
    // The user was deleted since the email went out: there is nobody left to send to.
    if (!(error instanceof KnownError && error.code === "USER_NOT_FOUND")) throw error;
  }
  await markCodeUsed(deps.db, row.projectId, row.id);
  return page(`You have been unsubscribed from ${category.name.toLowerCase()} emails.`);
}

const query = z.strictObject({ code: z.string().max(200) });
const description = "An HTML page saying the category was turned off";

const open = routeGroup({ tags: ["Emails"], access: "public" });

export const unsubscribeRoutes = [
  defineRoute({
    method: "GET",
    path: "/emails/unsubscribe-link",
    summary: "Turn off the email category an unsubscribe link was made for",
    tags: ["Emails"],
    // The link in an email: the code is the credential.
    access: "public",
    request: { query },
    response: { raw: true, description },
    handler: ({ deps, query }) => unsubscribe(deps, query.code),
  }),
  open.post("/emails/unsubscribe-link", {
    summary: "One-click unsubscribe from a mail client (RFC 8058: List-Unsubscribe-Post)",
    request: { query, body: z.object({ "List-Unsubscribe": z.string().max(100).optional() }).optional() },
    response: { raw: true, description },
    handler: ({ deps, query }) => unsubscribe(deps, query.code),
  }),
];
