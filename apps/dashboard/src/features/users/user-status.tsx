import type { ServerUser } from "@gatehouse/js";
import { Badge } from "../../ui/components.tsx";

/** One word for where a user stands, on the list and on the user's page. */
export function UserStatus({ user }: { user: ServerUser }) {
  if (user.isAnonymous) return <Badge>Anonymous</Badge>;
  if (user.restrictedByAdmin) return <Badge tone="danger">Restricted</Badge>;
  if (user.primaryEmail && !user.primaryEmailVerified) return <Badge tone="warning">Unverified</Badge>;
  return <Badge tone="success">Active</Badge>;
}
