import { useStrings } from "../../context.ts";
import { useSessions, useUser } from "../../hooks.ts";
import { SectionBoundary } from "../../internal/boundary.tsx";
import { MonitorIcon } from "../../internal/icons.tsx";
import { Alert, Button, formatDate, Loading, Section } from "../../internal/ui.tsx";
import { useFormAction } from "../../internal/use-action.ts";
import { List, ListRow } from "../../ui/list.tsx";

export function SessionsSection() {
  const s = useStrings();
  return (
    <Section id="sessions" title={s.sectionSessions} description={s.sessionsDescription}>
      <SectionBoundary fallback={<Loading />}>
        <SessionList />
      </SectionBoundary>
    </Section>
  );
}

function place(
  geo: { cityName?: string | null; countryCode?: string | null; ip: string } | undefined,
  fallback: string,
) {
  if (!geo) return fallback;
  const where = [geo.cityName, geo.countryCode].filter(Boolean).join(", ");
  return where ? `${where} · ${geo.ip}` : geo.ip;
}

function SessionList() {
  const s = useStrings();
  const user = useUser({ or: "throw", includeRestricted: true });
  const sessions = useSessions();
  const action = useFormAction();
  return (
    <div className="gh-stack-sm">
      {action.error ? <Alert>{action.error}</Alert> : null}
      <List label={s.sectionSessions}>
        {sessions.map((session) => (
          <ListRow
            key={session.id}
            data-session-id={session.id}
            leading={
              <span className="gh-avatar gh-avatar-team" aria-hidden="true">
                <MonitorIcon />
              </span>
            }
            title={
              <>
                {place(session.geoInfo, s.sessionUnknownPlace)}
                {session.isCurrentSession ? (
                  <span className="gh-badge gh-badge-primary">{s.currentSession}</span>
                ) : null}
                {session.isImpersonation ? <span className="gh-badge">{s.impersonation}</span> : null}
              </>
            }
            meta={
              <>
                {s.sessionCreated(formatDate(session.createdAt))}
                {session.lastUsedAt ? ` · ${s.sessionLastUsed(formatDate(session.lastUsedAt))}` : ""}
              </>
            }
            actions={
              session.isCurrentSession ? null : (
                <Button
                  small
                  variant="secondary"
                  disabled={action.pending}
                  aria-label={s.revokeSession}
                  onClick={() => action.run(() => user.revokeSession(session.id))}
                >
                  {s.revoke}
                </Button>
              )
            }
          />
        ))}
      </List>
    </div>
  );
}
