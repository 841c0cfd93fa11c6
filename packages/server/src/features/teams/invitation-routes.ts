import type { WireInvitationDetails } from "@gatehouse/shared";
import { knownError } from "@gatehouse/shared";
import { z } from "zod";
import { isUrlTrustedByProject } from "../../config/trusted-urls.ts";
import type { Database } from "../../db/index.ts";
import { emailField, normalizeEmail } from "../../fields/email.ts";
import { requireUser, resolveUserId } from "../../http/current-user.ts";
import type { RequestAuth } from "../../http/request-auth.ts";
import { defineRoute } from "../../http/route.ts";
import { StatusError } from "../../http/status-error.ts";
import { wire } from "../../http/wire-schema.ts";
import { consumeRateLimit, rateLimitScope } from "../../rate-limit/limiter.ts";
import { RATE_LIMITS } from "../../rate-limit/rules.ts";
import { sendBuiltInEmail } from "../emails/built-in.ts";
import { consumeVerificationCode } from "../verification-codes/service.ts";
import { requireClientTeamPermission, requireUserInProject, teamForCaller } from "./access.ts";
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
const all = ["client", "server", "admin"] as const;
/** PROTOCOL.md §4.3: a code is exactly 45 characters, anything else is a SCHEMA_ERROR. */
const codeBody = z.strictObject({ code: z.string().length(45) });

/** Clients manage a team's invitations as a member holding `$invite_members`; servers may for any team. */
async function teamForInviting(db: Database, auth: RequestAuth, teamId: string) {
  const team = await teamForCaller(db, auth, teamId);
  await requireClientTeamPermission(db, auth, teamId, "$invite_members");
  return team;
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
  defineRoute({
    method: "POST",
    path: "/team-invitations/send-code",
    summary: "Invite an email address to a team; the link in the email carries a one-time code",
    tags,
    access: all,
    request: {
      body: z.strictObject({ team_id: z.string(), email: emailField, callback_url: z.string().max(2048) }),
    },
    response: { body: z.object({ success: z.literal(true), id: z.string() }) },
    handler: async ({ deps, auth, body, clientIp }) => {
      const team = await teamForInviting(deps.db, auth, body.team_id);
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
  defineRoute({
    method: "POST",
    path: "/team-invitations/accept/check-code",
    summary: "Check an invitation code without using it",
    tags,
    access: all,
    request: { body: codeBody },
    response: { body: z.object({ is_code_valid: z.literal(true) }) },
    handler: async ({ deps, auth, body, clientIp }) => {
      await checkInvitationCode(deps, auth, clientIp, body.code, true);
      return { body: { is_code_valid: true } };
    },
  }),
  defineRoute({
    method: "POST",
    path: "/team-invitations/accept/details",
    summary: "The team an invitation code is for, without using the code",
    tags,
    access: all,
    request: { body: codeBody },
    response: {
      body: wire<WireInvitationDetails>()(z.object({ team_id: z.string(), team_display_name: z.string() })),
    },
    handler: async ({ deps, auth, body, clientIp }) => {
      const data = await checkInvitationCode(deps, auth, clientIp, body.code, true);
      const team = await findTeam(deps.db, auth.project.id, data.team_id);
      if (!team) throw knownError("TEAM_NOT_FOUND", { team_id: data.team_id });
      return { body: { team_id: team.id, team_display_name: team.displayName } };
    },
  }),
  defineRoute({
    method: "POST",
    path: "/team-invitations/accept",
    summary: "Join the team of an invitation code as the signed-in user (joining a team twice is a no-op)",
    tags,
    access: all,
    request: { body: codeBody },
    response: { body: z.object({}) },
    handler: async ({ deps, auth, body, clientIp }) => {
      // Checked before the code so that a signed-out or restricted attempt does not use it up.
      const user = requireUser(auth);
      await refuseRestrictedUser(deps.db, user, auth.config);
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
  defineRoute({
    method: "GET",
    path: "/team-invitations",
    summary: "Open invitations of a team (team_id) or addressed to a user's verified emails (user_id)",
    tags,
    access: all,
    request: { query: z.strictObject({ team_id: z.string().optional(), user_id: z.string().optional() }) },
    response: { body: listOf(teamInvitationSchema) },
    handler: async ({ deps, auth, query }) => {
      if ((query.team_id === undefined) === (query.user_id === undefined)) {
        throw new StatusError(400, "Exactly one of team_id and user_id must be given.");
      }
      let rows: Awaited<ReturnType<typeof listOpenInvitations>>;
      if (query.team_id !== undefined) {
        // Reading a team's invitations is reading its members-to-be: the reference asks for $read_members.
        const team = await teamForCaller(deps.db, auth, query.team_id);
        await requireClientTeamPermission(deps.db, auth, team.id, "$read_members");
        rows = await listOpenInvitations(deps.db, auth.project.id, { teamId: team.id });
      } else {
        const userId = resolveUserId(auth, query.user_id!);
        const user = await requireUserInProject(deps.db, auth, userId);
        const emails = await verifiedEmailsOf(deps.db, auth.project.id, user.id);
        rows = await listOpenInvitations(deps.db, auth.project.id, { emails });
      }
      const items = rows.map(({ invitation, team }) => invitationView(invitation, team));
      return { body: { items, is_paginated: false } };
    },
  }),
  defineRoute({
    method: "DELETE",
    path: "/team-invitations/:id",
    summary: "Revoke an invitation of a team (clients need $invite_members)",
    tags,
    access: all,
    request: {
      params: z.strictObject({ id: z.string() }),
      query: z.strictObject({ team_id: z.string() }),
    },
    response: { body: success },
    handler: async ({ deps, auth, params, query }) => {
      const team = await teamForInviting(deps.db, auth, query.team_id);
      if (!(await revokeInvitation(deps.db, auth.project.id, team.id, params.id))) {
        throw knownError("VERIFICATION_CODE_NOT_FOUND");
      }
      return { body: { success: true } };
    },
  }),
  defineRoute({
    method: "POST",
    path: "/team-invitations/:id/accept",
    summary: "Accept an invitation addressed to one of the user's verified emails",
    tags,
    access: all,
    request: {
      params: z.strictObject({ id: z.string() }),
      query: z.strictObject({ user_id: z.string() }),
    },
    response: { body: z.object({}) },
    handler: async ({ deps, auth, params, query }) => {
      const user = await requireUserInProject(deps.db, auth, resolveUserId(auth, query.user_id));
      const found = await findInvitation(deps.db, auth.project.id, params.id);
      if (!found) throw knownError("VERIFICATION_CODE_NOT_FOUND");
      const { invitation } = found;
      if (invitation.expiresAt.getTime() <= Date.now()) throw knownError("VERIFICATION_CODE_EXPIRED");
      const emails = await verifiedEmailsOf(deps.db, auth.project.id, user.id);
      if (!emails.includes(invitation.recipientEmail)) throw knownError("TEAM_INVITATION_EMAIL_MISMATCH");
      await refuseRestrictedUser(deps.db, user, auth.config);
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
