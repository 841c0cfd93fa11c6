import { useState } from "react";
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
  if (!user) {
    return (
      <CardPage>
        <CardHeader title={s.cliTitle} subtitle={s.cliSignIn} icon={<TerminalIcon />} />
        <Button block onClick={() => app.redirectToSignIn()}>
          {s.signIn}
        </Button>
      </CardPage>
    );
  }
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
