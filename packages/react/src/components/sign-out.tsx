import type { GatehouseClientApp } from "@gatehouse/js";
import { useEffect, useState } from "react";
import { useStrings } from "../context.ts";
import { useGatehouseApp } from "../hooks.ts";
import { describeError } from "../internal/errors.ts";
import { AlertIcon } from "../internal/icons.tsx";
import { AppLink, CardHeader, CardPage, Loading } from "../internal/ui.tsx";

const running = new WeakMap<GatehouseClientApp, Promise<void>>();

/** One sign-out at a time per app, however often the effect runs. */
function signOutOnce(app: GatehouseClientApp): Promise<void> {
  let promise = running.get(app);
  if (!promise) {
    promise = app.signOut().finally(() => running.delete(app));
    running.set(app, promise);
  }
  return promise;
}

/** Signs the user out as soon as it shows; the SDK then goes to the after-sign-out page. */
export function SignOut() {
  const s = useStrings();
  const app = useGatehouseApp();
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    signOutOnce(app).catch(setError);
  }, [app]);
  if (error) {
    return (
      <CardPage>
        <CardHeader
          title={s.errorTitle}
          subtitle={describeError(error, s).message}
          icon={<AlertIcon />}
          tone="danger"
        />
        <AppLink href={app.urls.home} className="gh-button gh-button-block">
          {s.goHome}
        </AppLink>
      </CardPage>
    );
  }
  return (
    <CardPage>
      <Loading label={s.signingOut} />
    </CardPage>
  );
}
