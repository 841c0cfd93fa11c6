import type { CurrentUser } from "@gatehouse/js";
import { useStrings } from "../context.ts";
import { useGatehouseApp } from "../hooks.ts";
import { UserIcon } from "../internal/icons.tsx";
import { appNavigate } from "../internal/router.ts";
import { Button, CardHeader, CardPage } from "../internal/ui.tsx";
import { useAction } from "../internal/use-action.ts";

/** What sign-in and sign-up show to someone who is signed in already. */
export function AlreadySignedIn({ user }: { user: CurrentUser }) {
  const s = useStrings();
  const app = useGatehouseApp();
  const [run, pending] = useAction();
  const returnTo =
    typeof window === "undefined"
      ? null
      : new URL(window.location.href).searchParams.get("after_auth_return_to");
  return (
    <CardPage>
      <CardHeader
        title={s.alreadySignedIn}
        subtitle={s.signedInAs(user.displayName ?? user.primaryEmail ?? user.id)}
        icon={<UserIcon />}
      />
      <div className="gh-stack-sm">
        <Button block onClick={() => appNavigate(app, returnTo ?? app.urls.afterSignIn)}>
          {s.continue}
        </Button>
        <Button
          block
          variant="secondary"
          loading={pending}
          onClick={() => run(() => app.signOut({ redirectUrl: window.location.href }))}
        >
          {s.signOutAndSwitch}
        </Button>
      </div>
    </CardPage>
  );
}
