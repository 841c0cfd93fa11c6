import { useTeams, useUser } from "@gatehouse/react";

/** Only for signed-in users: anyone else is sent to sign-in, and comes back here after. */
export function ProtectedPage() {
  const user = useUser({ or: "redirect" });
  const teams = useTeams();
  return (
    <main className="demo-main">
      <h1>Your notes</h1>
      <p className="demo-lead">This page is protected: only signed-in users see it.</p>
      <dl className="demo-facts" data-testid="user-facts">
        <div>
          <dt>Name</dt>
          <dd>{user.displayName ?? "—"}</dd>
        </div>
        <div>
          <dt>E-mail</dt>
          <dd data-testid="user-email">{user.primaryEmail ?? "—"}</dd>
        </div>
        <div>
          <dt>E-mail verified</dt>
          <dd data-testid="user-verified">{user.primaryEmailVerified ? "Yes" : "No"}</dd>
        </div>
        <div>
          <dt>Teams</dt>
          <dd data-testid="user-teams">
            {teams.length ? teams.map((team) => team.displayName).join(", ") : "None yet"}
          </dd>
        </div>
        <div>
          <dt>User id</dt>
          <dd className="demo-mono">{user.id}</dd>
        </div>
      </dl>
    </main>
  );
}
