import { isKnownError } from "@gatehouse/js";
import { useState } from "react";
import { useStrings } from "../context.ts";
import { useGatehouseApp } from "../hooks.ts";
import { PageBoundary } from "../internal/boundary.tsx";
import { AlertIcon, MailIcon } from "../internal/icons.tsx";
import { useOnce, useQueryParam } from "../internal/once.ts";
import { Alert, AppLink, Button, CardHeader, CardPage, DoneCard, Loading } from "../internal/ui.tsx";
import { useFormAction } from "../internal/use-action.ts";
import { BadLinkCard } from "./password-pages.tsx";

/**
 * The page of the e-mail verification link. It asks for a click before using the code, so that mail scanners
 * that open links do not spend it.
 */
export function EmailVerification({ code: givenCode }: { code?: string }) {
  const s = useStrings();
  const app = useGatehouseApp();
  const code = useQueryParam("code", givenCode);
  const [verified, setVerified] = useState(false);
  const action = useFormAction({ link: true });

  if (!code)
    return <BadLinkCard message={s.linkMissingCode} retryHref={app.urls.home} retryLabel={s.goHome} />;
  if (verified) {
    return <DoneCard title={s.emailVerifiedTitle} subtitle={s.emailVerified} continueHome />;
  }
  return (
    <CardPage>
      <CardHeader
        title={s.emailVerificationTitle}
        subtitle={s.emailVerificationQuestion}
        icon={<MailIcon />}
      />
      <div className="gh-stack">
        {action.error ? <Alert>{action.error}</Alert> : null}
        <Button
          block
          loading={action.pending}
          onClick={() =>
            action.run(async () => {
              try {
                const result = await app.verifyEmail(code);
                if (result.status === "error") action.fail(result.error);
                else setVerified(true);
              } catch (error) {
                // A second click on an already verified address is not a failure worth alarming about.
                if (isKnownError(error, "EMAIL_ALREADY_VERIFIED")) setVerified(true);
                else throw error;
              }
            })
          }
        >
          {s.verifyEmailButton}
        </Button>
      </div>
    </CardPage>
  );
}

/** The page of the magic link: signs in with the code of the link, after a click. */
export function MagicLinkCallback({ code: givenCode }: { code?: string }) {
  const s = useStrings();
  const app = useGatehouseApp();
  const code = useQueryParam("code", givenCode);
  const action = useFormAction({ link: true });

  if (!code) return <BadLinkCard message={s.linkMissingCode} />;
  return (
    <CardPage>
      <CardHeader title={s.magicLinkTitle} subtitle={s.magicLinkQuestion} icon={<MailIcon />} />
      <div className="gh-stack">
        {action.error ? (
          <Alert>
            {action.error} <AppLink href={app.urls.signIn}>{s.backToSignIn}</AppLink>
          </Alert>
        ) : null}
        <Button
          block
          loading={action.pending}
          onClick={() =>
            action.run(async () => {
              // The SDK goes on to after-sign-up for a new user and after-sign-in otherwise.
              const result = await app.signInWithMagicLink(code);
              if (result.status === "error" && result.error.code !== "MULTI_FACTOR_AUTHENTICATION_REQUIRED") {
                action.fail(result.error);
              }
            })
          }
        >
          {s.magicLinkButton}
        </Button>
      </div>
    </CardPage>
  );
}

/**
 * The OAuth callback page: trades the provider's code for a session and moves on. Failures are announced by the
 * SDK's alerts (SPEC.md §8) and stay on the page.
 */
export function OAuthCallback() {
  const s = useStrings();
  return (
    <PageBoundary
      fallback={
        <CardPage>
          <Loading label={s.oauthSigningIn} />
        </CardPage>
      }
    >
      <OAuthCallbackInner />
    </PageBoundary>
  );
}

let lastOAuthState: string | null = null;

/**
 * The SDK strips code and state from the address as soon as it starts, and a suspended first render is thrown
 * away, so the run is keyed by the last state seen on this page rather than by the current address.
 */
function oauthCallbackKey(): string {
  if (typeof window !== "undefined") {
    const params = new URL(window.location.href).searchParams;
    const state = params.get("state");
    if (state && params.get("code")) lastOAuthState = state;
  }
  return `oauth-callback:${lastOAuthState ?? "none"}`;
}

function OAuthCallbackInner() {
  const s = useStrings();
  const app = useGatehouseApp();
  const outcome = useOnce(oauthCallbackKey(), () => app.callOAuthCallback());
  if (outcome.ok && outcome.value) {
    return (
      <CardPage>
        <Loading label={s.oauthSigningIn} />
      </CardPage>
    );
  }
  const message = outcome.ok
    ? s.oauthNoCode
    : isKnownError(outcome.error, "INVALID_TOTP_CODE")
      ? s.oauthInvalidTotp
      : s.oauthError;
  return (
    <CardPage>
      <CardHeader
        title={s.errorTitle}
        subtitle={message}
        icon={<AlertIcon />}
        tone={outcome.ok ? "muted" : "danger"}
      />
      <AppLink href={app.urls.signIn} className="gh-button gh-button-block">
        {s.backToSignIn}
      </AppLink>
    </CardPage>
  );
}
