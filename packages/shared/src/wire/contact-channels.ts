/** Contact channels (PROTOCOL.md §3.6): clients and servers see the same fields. */
export type WireContactChannel = {
  user_id: string;
  id: string;
  value: string;
  type: "email";
  used_for_auth: boolean;
  is_verified: boolean;
  is_primary: boolean;
};

/** `POST /contact-channels`; `is_verified` is a server's. */
export type WireContactChannelCreate = {
  user_id: string;
  value: string;
  type: "email";
  used_for_auth: boolean;
  is_primary?: boolean | undefined;
  is_verified?: boolean | undefined;
};

/** `PATCH /contact-channels/{user_id}/{id}`. */
export type WireContactChannelUpdate = Partial<Omit<WireContactChannelCreate, "user_id">>;
