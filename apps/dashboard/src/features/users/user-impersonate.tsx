import type { ServerUser } from "@gatehouse/js";
import { Button, buttonClass } from "@gatehouse/react/ui";
import { useState } from "react";
import { useProjectContext } from "../../project-context.tsx";
import { ActionButton, CopyField, Field } from "../../ui/components.tsx";
import { Modal } from "../../ui/modal.tsx";

/** Impersonation sessions are short: long enough to reproduce a problem, short enough to leave nothing behind. */
const IMPERSONATION_MS = 60 * 60 * 1000;

type Tokens = { accessToken: string; refreshToken: string };

/**
 * Where the app's handler takes the new session: `<domain><handlerPath>/impersonate`, with the tokens in the URL
 * fragment, which browsers never send to a server. The page checks that they are an impersonation session of
 * this project before it asks to continue, and removes them from the address bar.
 */
export function impersonationUrl(domain: { domain: string; handlerPath: string }, tokens: Tokens): string {
  const url = new URL(`${domain.handlerPath.replace(/\/+$/, "")}/impersonate`, domain.domain);
  url.hash = new URLSearchParams({
    access_token: tokens.accessToken,
    refresh_token: tokens.refreshToken,
  }).toString();
  return url.toString();
}

/**
 * Impersonate: a one-hour session marked as impersonation (POST /auth/sessions with is_impersonation), opened in
 * the app through its handler. Apps without our handler pages get a console snippet instead: @gatehouse/js and
 * @stackframe/js keep the refresh token in the `stack-refresh-<projectId>` cookie.
 */
export function Impersonate({ user }: { user: ServerUser }) {
  const { app, project } = useProjectContext();
  const [tokens, setTokens] = useState<Tokens | null>(null);
  const domains = project.config.domains;
  const name = user.displayName ?? user.primaryEmail ?? "this user";
  const snippet = tokens
    ? `document.cookie = "stack-refresh-${project.id}=${tokens.refreshToken}; path=/; max-age=3600"; location.reload();`
    : "";
  return (
    <>
      <ActionButton
        variant="secondary"
        onClick={async () => {
          setTokens(
            await app.createSession({
              userId: user.id,
              isImpersonation: true,
              expiresInMillis: IMPERSONATION_MS,
            }),
          );
        }}
      >
        Impersonate
      </ActionButton>
      {tokens ? (
        <Modal
          wide
          title={`Impersonate ${name}`}
          description="A one-hour session marked as impersonation was created. It appears in the user's sessions, where you can revoke it."
          onClose={() => setTokens(null)}
          footer={
            <Button variant="secondary" onClick={() => setTokens(null)}>
              Done
            </Button>
          }
        >
          <Field
            label="Open your app signed in as them"
            hint={
              domains.length
                ? "Opens your app's handler in a new tab; it asks before switching that browser to this user."
                : "Add a trusted domain on the Domains page to open your app from here."
            }
          >
            {domains.length ? (
              <div className="row">
                {domains.map((domain) => (
                  <a
                    key={domain.domain}
                    className={buttonClass()}
                    href={impersonationUrl(domain, tokens)}
                    target="_blank"
                    rel="noreferrer noopener"
                    data-testid="impersonate-link"
                  >
                    Open {domain.domain} ↗
                  </a>
                ))}
              </div>
            ) : (
              <span className="muted">No trusted domain configured.</span>
            )}
          </Field>
          <Field
            label="App without Gatehouse's handler pages?"
            hint="Run this in the browser console on your app's site: it stores the session where the SDK reads it."
          >
            <CopyField value={snippet} label="impersonation-snippet" />
          </Field>
        </Modal>
      ) : null}
    </>
  );
}
