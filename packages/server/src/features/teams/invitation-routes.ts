import type { WireInvitationDetails } from "@gatehouse/shared";
import { knownError } from "@gatehouse/shared";
import { z } from "zod";
import { isUrlTrustedByProject } from "../../config/trusted-urls.ts";
import type { Database } from "../../db/index.ts";
import { emailField, normalizeEmail } from "../../fields/email.ts";
import { requireUser, resolveUserId } from "../../http/current-user.ts";
import type { RequestAuth } from "../../http/request-auth.ts";
import { routeGroup } from "../../http/route.ts";
import { StatusError } from "../../http/status-error.ts";
import { wire } from "../../http/wire-schema.ts";
import { consumeRateLimit, rateLimitScope } from "../../rate-limit/limiter.ts";
import { RATE_LIMITS } from "../../rate-limit/rules.ts";
import { sendBuiltInEmail } from "../emails/built-in.ts";
import { consumeVerificationCode } from "../verification-codes/service.ts";
import { requireUserInProject, teamForMemberWith } from "./access.ts";
import {
  createInvitation,
  findInvitation,
  joinInvitedTeam,
  listOpenInvitations,
  refuseRestrictedUser,
  revokeInvitation,
  useInvitationCode,
  verifiedEmailsOf,
} from "./invitations.ts";
import { findTeam } from "./service.ts";
import { invitationView, listOf, success, teamInvitationSchema } from "./views.ts";

const tags = ["Team invitations"];
const anyKey = routeGroup({ tags, access: ["client", "server", "admin"] });
/** PROTOCOL.md §4.3: a code is exactly 45 characters, anything else is a SCHEMA_ERROR. */
const codeBody = z.strictObject({ code: z.string().length(45) });

/** The user a code route acts for: signed in (USER_AUTHENTICATION_REQUIRED) and not restricted. */
async function unrestrictedUser(db: Database, auth: RequestAuth) {
  const user = requireUser(auth);
  await refuseRestrictedUser(db, user, auth.config);
  return user;
}

/** `user_id` of a client's invitation route: only its own user, anyone else being "no own user" (§8.1). */
function invitedUserId(auth: RequestAuth, value: string): string {
  if (auth.accessType !== "client") return resolveUserId(auth, value);
  if (!auth.user || (value !== "me" && value !== auth.user.id)) {
    throw knownError("CANNOT_GET_OWN_USER_WITHOUT_USER");
  }
  return auth.user.id;
}

/** Checks an emailed code, counting the attempt; `peek` leaves it usable. */
async function checkInvitationCode(
  deps: { db: Database; env: { isDevelopment: boolean } },
  auth: RequestAuth,
  clientIp: string | null,
  code: string,
  peek: boolean,
) {
  await consumeRateLimit(rateLimitScope(deps, auth, clientIp), RATE_LIMITS.codeCheckPerIp, clientIp);
  const row = await consumeVerificationCode(deps.db, {
    projectId: auth.project.id,
    purpose: "team_invitation",
    code,
    peek,
  });
  return row.data as { team_id: string; email: string; invitation_id: string };
}

export const invitationRoutes = [
  anyKey.post("/team-invitations/send-code", {
    summary: "Invite an email address to a team; the link in the email carries a one-time code",
    request: {
      body: z.strictObject({ team_id: z.string(), email: emailField, callback_url: z.string().max(2048) }),
    },
    response: { body: z.object({ success: z.literal(true), id: z.string() }) },
    handler: async ({ deps, auth, body, clientIp }) => {
      const team = await teamForMemberWith(deps.db, auth, body.team_id, ["$invite_members"]);
      if (!isUrlTrustedByProject(auth.config, body.callback_url))
        throw knownError("REDIRECT_URL_NOT_WHITELISTED");
      const email = normalizeEmail(body.email);
      if (auth.accessType === "client") {
        // A member could otherwise turn the project's mail server against any address.
        const limits = rateLimitScope(deps, auth, clientIp);
        await consumeRateLimit(limits, RATE_LIMITS.emailPerRecipient, email);
        await consumeRateLimit(limits, RATE_LIMITS.emailPerIp, clientIp);
      }
      const { invitation, code } = await createInvitation(deps.db, {
        projectId: auth.project.id,
        teamId: team.id,
        email,
      });
      const link = new URL(body.callback_url);
      link.searchParams.set("code", code);
      await sendBuiltInEmail(deps, auth.project, {
        kind: "team_invitation",
        config: auth.config,
        to: email,
        variables: { link: link.toString(), teamDisplayName: team.displayName },
      });
      return { body: { success: true, id: invitation.id } };
    },
  }),
  anyKey.post("/team-invitations/accept/check-code", {
    summary: "Check an invitation code without using it",
    request: { body: codeBody },
    response: { body: z.object({ is_code_valid: z.literal(true) }) },
    handler: async ({ deps, auth, body, clientIp }) => {
      await checkInvitationCode(deps, auth, clientIp, body.code, true);
      return { body: { is_code_valid: true } };
    },
  }),
  anyKey.post("/team-invitations/accept/details", {
    summary: "The team an invitation code is for, without using the code",
    request: { body: codeBody },
    response: {
      body: wire<WireInvitationDetails>()(z.object({ team_id: z.string(), team_display_name: z.string() })),
    },
    handler: async ({ deps, auth, body, clientIp }) => {
      await unrestrictedUser(deps.db, auth);
      const data = await checkInvitationCode(deps, auth, clientIp, body.code, true);
      const team = await findTeam(deps.db, auth.project.id, data.team_id);
      if (!team) throw knownError("TEAM_NOT_FOUND", { team_id: data.team_id });
      return { body: { team_id: team.id, team_display_name: team.displayName } };
    },
  }),
  anyKey.post("/team-invitations/accept", {
    summary: "Join the team of an invitation code as the signed-in user (joining a team twice is a no-op)",
    request: { body: codeBody },
    response: { body: z.object({}) },
    handler: async ({ deps, auth, body, clientIp }) => {
      // Checked before the code so that a signed-out or restricted attempt does not use it up.
      const user = await unrestrictedUser(deps.db, auth);
      const data = await checkInvitationCode(deps, auth, clientIp, body.code, false);
      await joinInvitedTeam(deps.db, {
        projectId: auth.project.id,
        teamId: data.team_id,
        invitationId: data.invitation_id,
        user,
        config: auth.config,
      });
      return { body: {} };
    },
  }),
  anyKey.get("/team-invitations", {
    summary: "Open invitations of a team (team_id) or addressed to a user's verified emails (user_id)",
    request: { query: z.strictObject({ team_id: z.string().optional(), user_id: z.string().optional() }) },
    response: { body: listOf(teamInvitationSchema) },
    handler: async ({ deps, auth, query }) => {
      if (query.team_id !== undefined && query.user_id !== undefined) {
        throw new StatusError(400, "Cannot specify both team_id and user_id");
      }
      if (query.team_id === undefined && query.user_id === undefined) {
        throw new StatusError(400, "Must specify either team_id or user_id");
      }
      let rows: Awaited<ReturnType<typeof listOpenInvitations>>;
      if (query.team_id !== undefined) {
        // The list shows who is about to join and lets one revoke: reading members and inviting, both.
        const team = await teamForMemberWith(deps.db, auth, query.team_id, [
          "$read_members",
          "$invite_members",
        ]);
        rows = await listOpenInvitations(deps.db, auth.project.id, { teamId: team.id });
      } else {
        const userId = invitedUserId(auth, query.user_id!);
        const user = await requireUserInProject(deps.db, auth, userId);
        const emails = await verifiedEmailsOf(deps.db, auth.project.id, user.id);
        rows = await listOpenInvitations(deps.db, auth.project.id, { emails });
      }
      const items = rows.map(({ invitation, team }) => invitationView(invitation, team));
      return { body: { items, is_paginated: false } };
    },
  }),
  anyKey.delete("/team-invitations/:id", {
    summary: "Revoke an invitation of a team (clients need $remove_members)",
    request: {
      params: z.strictObject({ id: z.uuid() }),
      query: z.strictObject({ team_id: z.string().optional() }),
    },
    response: { body: success },
    handler: async ({ deps, auth, params, query }) => {
      if (query.team_id === undefined) {
        throw new StatusError(400, "team_id is required for deleting a team invitation");
      }
      const team = await teamForMemberWith(deps.db, auth, query.team_id, ["$remove_members"]);
      if (!(await revokeInvitation(deps.db, auth.project.id, team.id, params.id))) {
        throw knownError("VERIFICATION_CODE_NOT_FOUND");
      }
      return { body: { success: true } };
    },
  }),
  anyKey.post("/team-invitations/:id/accept", {
    summary: "Accept an invitation addressed to one of the user's verified emails",
    request: {
      params: z.strictObject({ id: z.uuid() }),
      query: z.strictObject({ user_id: z.string() }),
    },
    response: { body: z.object({}) },
    handler: async ({ deps, auth, params, query }) => {
      const user = await requireUserInProject(deps.db, auth, invitedUserId(auth, query.user_id));
      if (auth.accessType === "client") await refuseRestrictedUser(deps.db, user, auth.config);
      // Unknown, used, expired or addressed to someone else: one answer, so that ids cannot be probed.
      const found = await findInvitation(deps.db, auth.project.id, params.id);
      const invitation = found?.invitation;
      if (!invitation || invitation.expiresAt.getTime() <= Date.now())
        throw knownError("VERIFICATION_CODE_NOT_FOUND");
      const emails = await verifiedEmailsOf(deps.db, auth.project.id, user.id);
      if (!emails.includes(invitation.recipientEmail)) throw knownError("VERIFICATION_CODE_NOT_FOUND");
      await useInvitationCode(deps.db, invitation);
      await joinInvitedTeam(deps.db, {
        projectId: auth.project.id,
        teamId: invitation.teamId,
        invitationId: invitation.id,
        user,
        config: auth.config,
      });
      return { body: {} };
    },
  }),
];
