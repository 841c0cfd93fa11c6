/** Team member profiles (PROTOCOL.md §3.4), apart from teams.ts because a server's carries the user. */
import type { WireServerUser } from "./users.ts";

export type WireClientMemberProfile = {
  team_id: string;
  user_id: string;
  display_name: string | null;
  profile_image_url: string | null;
};

/** A server also sees the member's full server user. */
export type WireServerMemberProfile = WireClientMemberProfile & { user: WireServerUser };
