import { Avatar, avatarColor } from "@gatehouse/react/ui";
import type { ReactNode } from "react";
import { projectPath } from "../project-context.tsx";
import { Link } from "../router.tsx";

/** A user of the project as a link to their page: picture or initials, name (else email), and a line about them. */
export function UserLink(props: {
  projectId: string;
  user: { id: string; name: string | null; email: string | null; imageUrl: string | null };
  detail: ReactNode;
}) {
  const { user } = props;
  return (
    <Link to={projectPath(props.projectId, `users/${user.id}`)} className="user-cell" data-user-id={user.id}>
      <Avatar name={user.name ?? user.email} color={avatarColor(user.id)} imageUrl={user.imageUrl} />
      <span>
        <div className="name">{user.name ?? user.email ?? "Anonymous user"}</div>
        <div className="muted small">{props.detail}</div>
      </span>
    </Link>
  );
}
