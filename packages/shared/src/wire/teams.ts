/** Teams, memberships and invitations (PROTOCOL.md §3.3 to §3.5); member profiles are in members.ts. */

export type WireClientTeam = {
  id: string;
  display_name: string;
  profile_image_url: string | null;
  client_metadata: unknown;
  client_read_only_metadata: unknown;
};

export type WireServerTeam = WireClientTeam & {
  created_at_millis: number;
  server_metadata: unknown;
};

/** `POST /team-memberships/{team_id}/{user_id}`. */
export type WireTeamMembership = { team_id: string; user_id: string };

export type WireTeamInvitation = {
  id: string;
  team_id: string;
  team_display_name: string;
  expires_at_millis: number;
  recipient_email: string;
};

/** `POST /team-invitations/send-code`. */
export type WireInvitationSent = { success: true; id: string };

/** `POST /team-invitations/accept/details`. */
export type WireInvitationDetails = { team_id: string; team_display_name: string };

/** `PATCH /teams/{id}`; a client may send the first three. */
export type WireTeamUpdate = {
  display_name?: string | undefined;
  profile_image_url?: string | null | undefined;
  client_metadata?: unknown;
  client_read_only_metadata?: unknown;
  server_metadata?: unknown;
};

/** `POST /teams`: a client creates teams for itself (`creator_user_id: me`). */
export type WireTeamCreate = Omit<WireTeamUpdate, "display_name"> & {
  display_name: string;
  creator_user_id?: string | undefined;
};
