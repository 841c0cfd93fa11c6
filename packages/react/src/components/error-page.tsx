import { KnownError, looksTechnical } from "@gatehouse/js";
import { useStrings } from "../context.ts";
import { useGatehouseApp } from "../hooks.ts";
import { knownErrorMessage } from "../internal/errors.ts";
import { AlertIcon } from "../internal/icons.tsx";
import { useLocation } from "../internal/router.ts";
import { AppLink, CardHeader, CardPage } from "../internal/ui.tsx";

function parseDetails(text: string | null): Record<string, unknown> | undefined {
  if (!text) return undefined;
  try {
    const value = JSON.parse(text);
    return typeof value === "object" && value !== null ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The error page. The server sends failed OAuth sign-ins here with `errorCode`, `message` and `details` in the
 * query (PROTOCOL.md §4.7); known codes get this package's wording, others the server's message.
 */
export function ErrorPage({ errorCode, message }: { errorCode?: string; message?: string }) {
  const s = useStrings();
  const app = useGatehouseApp();
  const params = useLocation().searchParams;
  const code = errorCode ?? params.get("errorCode") ?? params.get("error_code");
  const text = message ?? params.get("message") ?? params.get("error_description");
  // A message meant for developers (a request line, a stack) is never shown to the person.
  let shown = text && !looksTechnical(text) ? text : s.errorDefault;
  if (code) {
    try {
      const worded = knownErrorMessage(new KnownError(code, parseDetails(params.get("details"))), s);
      if (worded) shown = worded.message;
    } catch {
      // An abstract family name cannot be built into an error; keep the server's text.
    }
  }
  return (
    <CardPage>
      <CardHeader title={s.errorTitle} subtitle={shown} icon={<AlertIcon />} tone="danger" />
      {code ? <p className="gh-center gh-muted">{s.errorCode(code)}</p> : null}
      <div className="gh-stack-sm" style={{ marginTop: 16 }}>
        <AppLink href={app.urls.signIn} className="gh-button gh-button-block">
          {s.backToSignIn}
        </AppLink>
        <AppLink href={app.urls.home} className="gh-button gh-button-secondary gh-button-block">
          {s.goHome}
        </AppLink>
      </div>
    </CardPage>
  );
}
