import { GatehouseClientApp, gatehouseInternals, isKnownError } from "@gatehouse/js";
import { type ReactNode, useLayoutEffect, useState } from "react";
import { useStrings } from "../context.ts";
import { useGatehouseApp } from "../hooks.ts";
import { PageBoundary } from "../internal/boundary.tsx";
import { describeError, reportUnexpected } from "../internal/errors.ts";
import { AlertIcon, UserIcon } from "../internal/icons.tsx";
import { forgetOnce, useOnce } from "../internal/once.ts";
import { Alert, Button, CardHeader, CardPage, LoadingCard, UserSummary } from "../internal/ui.tsx";
import { useAction } from "../internal/use-action.ts";

/** Who the link would sign this browser in as, and the tokens to store if the visitor goes on. */
export type ImpersonationTarget = {
  user: {
    id: string;
    displayName: string | null;
    primaryEmail: string | null;
    profileImageUrl: string | null;
  };
  tokens: { accessToken: string; refreshToken: string };
};

/** Why a link was refused: incomplete, tokens that do not work here, or tokens of an ordinary sign-in. */
export type ImpersonationRefusal = "malformed" | "invalid" | "not-impersonation";

export type ImpersonationCheck =
  | { ok: true; target: ImpersonationTarget }
  | { ok: false; refusal: ImpersonationRefusal };

/**
 * Checks the tokens of an impersonation link (`#access_token=…&refresh_token=…`, form-encoded) without touching
 * the app's own token store: a throwaway app with an in-memory store, of the same project and server, uses them.
 *
 * Why this check comes before anything is stored: a link that simply signed in with whatever tokens it carried
 * would let anyone mail a victim a link with the attacker's OWN tokens and sign the victim into the attacker's
 * account (login CSRF): what the victim then types or uploads would land in the attacker's account. Only project
 * admins can mint impersonation sessions (`POST /auth/sessions` with server keys), so requiring the session to be
 * one closes that door: tokens from an ordinary sign-in are refused.
 */
export async function checkImpersonationLink(
  app: GatehouseClientApp,
  fragment: string,
): Promise<ImpersonationCheck> {
  const refreshToken = new URLSearchParams(fragment).get("refresh_token");
  if (!refreshToken) return { ok: false, refusal: "malformed" };

  const { uniqueIdentifier: _sharedIdentity, ...options } = app[gatehouseInternals].getConstructorOptions();
  const probe = new GatehouseClientApp({
    ...options,
    tokenStore: "memory",
    redirectMethod: "none",
    noAutomaticPrefetch: true,
  });
  // Only the refresh token goes in: the first call trades it for a fresh access token of this project, so an
  // access token from the link that belongs to another session (or user) can never be the one stored.
  probe[gatehouseInternals].appSession()?.setTokens({ accessToken: null, refreshToken });
  try {
    // Null when the refresh token is unknown here (another project), expired or revoked.
    const user = await probe.getUser({ includeRestricted: true });
    if (!user) return { ok: false, refusal: "invalid" };
    const sessions = await user.getActiveSessions();
    const accessToken = await probe.getAccessToken();
    if (!accessToken) return { ok: false, refusal: "invalid" };
    // The server lists the caller's own current session even when it is an impersonation one (it hides other
    // impersonation sessions from non-admins), so the session these tokens belong to must be listed, and marked.
    const current = sessions.find((session) => session.isCurrentSession);
    const isImpersonation = current?.isImpersonation === true;
    if (!isImpersonation) return { ok: false, refusal: "not-impersonation" };
    return {
      ok: true,
      target: {
        user: {
          id: user.id,
          displayName: user.displayName,
          primaryEmail: user.primaryEmail,
          profileImageUrl: user.profileImageUrl,
        },
        tokens: { accessToken, refreshToken },
      },
    };
  } catch (error) {
    // A token the server cannot parse or will not take is a bad link, not a failure of the page.
    if (isKnownError(error)) return { ok: false, refusal: "invalid" };
    throw error;
  } finally {
    probe[gatehouseInternals].appSession()?.clear();
  }
}

/** The fragment of the address, without its `#`. */
function currentFragment(): string {
  return typeof window === "undefined" ? "" : window.location.hash.replace(/^#/, "");
}

/**
 * `/handler/impersonate#access_token=…&refresh_token=…`: the page a project admin opens from the dashboard to act
 * as one of the project's users. The tokens travel in the fragment, which browsers never send to a server; the
 * page removes it from the address bar and the history entry as soon as it shows, checks the session really is
 * an impersonation session, and signs this browser in only after the admin confirms.
 */
export function Impersonate() {
  // Read once, before the address loses it below; this outer part never suspends, so the state is kept.
  const [fragment] = useState(currentFragment);
  useLayoutEffect(() => {
    // The refresh token must not stay in the address bar, the history or a bookmark.
    if (window.location.hash) {
      window.history.replaceState(
        window.history.state,
        "",
        window.location.pathname + window.location.search,
      );
    }
  }, []);
  const s = useStrings();
  return (
    <PageBoundary fallback={<LoadingCard label={s.impersonateChecking} />}>
      <ImpersonateInner fragment={fragment} />
    </PageBoundary>
  );
}

function ImpersonateInner({ fragment }: { fragment: string }) {
  const s = useStrings();
  const app = useGatehouseApp();
  const [attempt, setAttempt] = useState(0);
  const key = `impersonate:${attempt}:${fragment}`;
  const outcome = useOnce(key, () => checkImpersonationLink(app, fragment));
  const [run, pending] = useAction();

  /** Drops the tokens this page holds and leaves it; the app's token store is touched only on Continue. */
  const leave = (signIn: ImpersonationTarget["tokens"] | null) =>
    run(async () => {
      if (signIn) await app[gatehouseInternals].signInWithTokens(signIn);
      forgetOnce(key);
      if (signIn) await app.redirectToAfterSignIn({ replace: true });
      else await app.redirectToHome({ replace: true });
    });

  if (!outcome.ok) {
    reportUnexpected(outcome.error);
    return (
      <RefusedCard message={describeError(outcome.error, s).message}>
        <Button
          block
          variant="secondary"
          onClick={() => {
            forgetOnce(key);
            setAttempt((n) => n + 1);
          }}
        >
          {s.tryAgain}
        </Button>
      </RefusedCard>
    );
  }
  const check = outcome.value;
  if (!check.ok) {
    const message = {
      malformed: s.impersonateMalformed,
      invalid: s.impersonateInvalid,
      "not-impersonation": s.impersonateNotImpersonation,
    }[check.refusal];
    return (
      <RefusedCard message={message}>
        <Button block variant="secondary" onClick={() => leave(null)}>
          {s.goHome}
        </Button>
      </RefusedCard>
    );
  }

  const { user, tokens } = check.target;
  const name = user.displayName ?? user.primaryEmail ?? user.id;
  return (
    <CardPage>
      <CardHeader title={s.impersonateTitle} subtitle={s.impersonateQuestion} icon={<UserIcon />} />
      <div className="gh-stack">
        <UserSummary user={user} name={name} />
        <Alert tone="info">{s.impersonateWarning(name)}</Alert>
        <div className="gh-stack-sm">
          <Button block loading={pending} onClick={() => leave(tokens)}>
            {s.impersonateContinue(name)}
          </Button>
          <Button block variant="secondary" disabled={pending} onClick={() => leave(null)}>
            {s.cancel}
          </Button>
        </div>
      </div>
    </CardPage>
  );
}

function RefusedCard({ message, children }: { message: string; children: ReactNode }) {
  const s = useStrings();
  return (
    <CardPage>
      <CardHeader title={s.impersonateRefusedTitle} subtitle={message} icon={<AlertIcon />} tone="danger" />
      {children}
    </CardPage>
  );
}
