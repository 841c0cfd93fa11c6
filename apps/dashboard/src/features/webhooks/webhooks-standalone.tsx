import { openWebhookPortal, readWebhookPortalToken } from "@gatehouse/js";
import { formatDate } from "@gatehouse/react/ui";
import { useMemo, useSyncExternalStore } from "react";
import { Empty, PageHead } from "../../ui/components.tsx";
import { BrandMark, Icon } from "../../ui/icons.tsx";
import { ThemeToggle } from "../../ui/theme.tsx";
import { WebhookPortalView } from "./webhooks.tsx";

function subscribeToHash(listener: () => void) {
  window.addEventListener("hashchange", listener);
  return () => window.removeEventListener("hashchange", listener);
}

/** The token in `#token=…`; the fragment never reaches the server, so the token stays out of its logs. */
function useHashToken(): string {
  const hash = useSyncExternalStore(subscribeToHash, () => window.location.hash);
  return new URLSearchParams(hash.replace(/^#/, "")).get("token") ?? "";
}

/**
 * `/webhooks-portal#token=…`, the link `POST /webhooks/svix-token` answers with: one project's webhook portal for
 * someone without a dashboard account. No sign-in: the token alone authorizes the portal's API, for its project.
 */
export function StandaloneWebhookPortal() {
  const token = useHashToken();
  const claims = readWebhookPortalToken(token);
  const portal = useMemo(() => openWebhookPortal({ baseUrl: window.location.origin, token }), [token]);
  const expired = claims !== null && claims.expiresAt.getTime() <= Date.now();
  return (
    <div className="portal-shell">
      <header className="topbar">
        <div className="brand">
          <BrandMark /> Gatehouse
        </div>
        <span className="muted">Webhook portal</span>
        <span className="spacer" />
        <ThemeToggle />
      </header>
      <main className="content">
        <div className="page">
          {claims === null || expired ? (
            <Empty
              icon={<Icon name="lock" size={22} />}
              title={expired ? "This link has expired" : "No portal link"}
            >
              {expired
                ? `Portal links work for 24 hours; this one ended ${formatDate(claims?.expiresAt)}. Ask the project's owner for a new one.`
                : "Open the webhook portal with the whole link you were given: it ends in #token=…. Ask the project's owner for one."}
            </Empty>
          ) : (
            <>
              <PageHead
                title="Webhooks"
                description={
                  <>
                    Endpoints of project <span className="mono">{claims.projectId}</span>. This link works
                    until {formatDate(claims.expiresAt)}.
                  </>
                }
              />
              <WebhookPortalView portal={portal} />
            </>
          )}
        </div>
      </main>
    </div>
  );
}
