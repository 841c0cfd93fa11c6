import type { WireContactChannel } from "@gatehouse/shared";
import { z } from "zod";
import { SECURE_TOKEN_LENGTH } from "../../crypto/index.ts";
import { normalizeEmail } from "../../fields/email.ts";
import { wire } from "../../http/wire-schema.ts";
import type { ContactChannelRow } from "./schema.ts";

/** RFC 5321 caps a forward path at 256 octets including the angle brackets. */
const MAX_EMAIL_LENGTH = 254;

/** An email address from a request: validated, then trimmed and lower-cased the way channels are stored. */
export const emailAddressSchema = z
  .string()
  .trim()
  .max(MAX_EMAIL_LENGTH)
  .pipe(z.email({ message: "must be a valid e-mail address" }))
  .transform(normalizeEmail);

/** Body of the code routes (PROTOCOL.md §4.3): exactly 45 characters; case does not matter. */
export const codeBodySchema = z.strictObject({ code: z.string().length(SECURE_TOKEN_LENGTH) });

/** PROTOCOL.md §3.6 read shape; clients and servers see the same fields. */
export const contactChannelSchema = wire<WireContactChannel>()(
  z.object({
    user_id: z.string(),
    id: z.string(),
    value: z.string(),
    type: z.literal("email"),
    used_for_auth: z.boolean(),
    is_verified: z.boolean(),
    is_primary: z.boolean(),
  }),
);

export type ContactChannelView = WireContactChannel;

export function contactChannelView(row: ContactChannelRow): ContactChannelView {
  return {
    user_id: row.userId,
    id: row.id,
    value: row.value,
    type: row.type,
    used_for_auth: row.usedForAuth,
    is_verified: row.isVerified,
    is_primary: row.isPrimary,
  };
}
