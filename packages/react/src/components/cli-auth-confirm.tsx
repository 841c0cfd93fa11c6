import { useEffect, useState } from "react";
import { useStrings } from "../context.ts";
import { useGatehouseApp, useUser } from "../hooks.ts";
import { PageBoundary } from "../internal/boundary.tsx";
import { AlertIcon, TerminalIcon } from "../internal/icons.tsx";
import { useQueryParam } from "../internal/once.ts";
import { Alert, Button, CardHeader, CardPage, DoneCard, UserSummary } from "../internal/ui.tsx";
import { useFormAction } from "../internal/use-action.ts";

/** `/handler/cli-auth-confirm?login_code=…`: the signed-in user hands a command-line login their session. */
export function CliAuthConfirm({ loginCode }: { loginCode?: string }) {
  return (
    <PageBoundary>
      <CliAuthConfirmInner {...(loginCode !== undefined ? { loginCode } : {})} />
    </PageBoundary>
  );
}

function CliAuthConfirmInner({ loginCode: givenCode }: { loginCode?: string }) {
  const s = useStrings();
  const app = useGatehouseApp();
  const user = useUser();
  const code = useQueryParam("login_code", givenCode);
  const [state, setState] = useState<"ask" | "done" | "cancelled">("ask");
  const action = useFormAction();
  // The server answers a plain 400 for unknown, expired and used login codes.
  const failure = action.failure;
  const error =
    failure && failure.code === null && /login code/i.test(failure.message) ? s.cliInvalid : failure?.message;

  if (!code) {
    return (
      <CardPage>
        <CardHeader title={s.cliTitle} subtitle={s.cliMissingCode} icon={<AlertIcon />} tone="danger" />
      </CardPage>
    );
  }
  if (state === "done") {
    return <DoneCard title={s.cliTitle} subtitle={s.cliDone} />;
  }
  if (state === "cancelled") {
    return (
      <CardPage>
        <CardHeader title={s.cliTitle} subtitle={s.cliCancelled} icon={<TerminalIcon />} tone="muted" />
      </CardPage>
    );
  }
  if (!user) return <SignedOut loginCode={code} />;
  return (
    <CardPage>
      <CardHeader title={s.cliTitle} subtitle={s.cliQuestion} icon={<TerminalIcon />} />
      <div className="gh-stack">
        <UserSummary user={user} name={user.displayName ?? user.primaryEmail ?? ""} />
        {error ? <Alert>{error}</Alert> : null}
        <div className="gh-stack-sm">
          <Button
            block
            loading={action.pending}
            onClick={() =>
              action.run(async () => {
                await app.completeCliLogin(code);
                setState("done");
              })
            }
          >
            {s.cliAuthorize}
          </Button>
          <Button block variant="secondary" disabled={action.pending} onClick={() => setState("cancelled")}>
            {s.cancel}
          </Button>
        </div>
      </div>
    </CardPage>
  );
}

/**
 * Nobody signed in (PROTOCOL-EXTRA §8.9): when the command-line tool holds a guest (anonymous) session, the visitor
 * takes it over and signs up, which upgrades that guest in place; back here, signed in, they authorize as usual.
 * Otherwise they sign in first.
 */
function SignedOut({ loginCode }: { loginCode: string }) {
  const s = useStrings();
  const app = useGatehouseApp();
  // Until the server answers, the visitor is offered the usual sign-in.
  const [state, setState] = useState<"anonymous" | "none">("none");
  const action = useFormAction();
  useEffect(() => {
    let current = true;
    app.cliLoginSessionState(loginCode).then(
      (found) => current && setState(found),
      // An unknown or spent code: the page says so once the visitor, signed in, tries to authorize.
      () => current && setState("none"),
    );
    return () => {
      current = false;
    };
  }, [app, loginCode]);

  const anonymous = state === "anonymous";
  const takeOver = () =>
    action.run(async () => {
      await app.claimCliAnonymousSession(loginCode);
      await app.redirectToSignUp();
    });
  return (
    <CardPage>
      <CardHeader
        title={s.cliTitle}
        subtitle={anonymous ? s.cliAnonymous : s.cliSignIn}
        icon={<TerminalIcon />}
      />
      {action.error ? <Alert>{action.error}</Alert> : null}
      <Button block loading={action.pending} onClick={anonymous ? takeOver : () => app.redirectToSignIn()}>
        {anonymous ? s.signUpLink : s.signIn}
      </Button>
    </CardPage>
  );
}
