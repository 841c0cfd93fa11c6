import type { Project } from "@gatehouse/js";
import { type ReactNode, useState } from "react";
import { useStrings } from "../context.ts";
import { useGatehouseApp, useProject, useUser } from "../hooks.ts";
import { PageBoundary } from "../internal/boundary.tsx";
import { describeError } from "../internal/errors.ts";
import { EmailField, Form, PasswordField } from "../internal/fields.tsx";
import { FingerprintIcon } from "../internal/icons.tsx";
import { providerInfo } from "../internal/providers.ts";
import { withCurrentReturnTo } from "../internal/router.ts";
import { Alert, AppLink, Brand, Button, CardHeader, CardPage, Divider } from "../internal/ui.tsx";
import { useFormAction } from "../internal/use-action.ts";
import { type Errors, hasErrors, required, validateEmail } from "../internal/validation.ts";
import { AlreadySignedIn } from "./already-signed-in.tsx";
import { EmailCodeForm } from "./email-code-form.tsx";
import type { SignInFormProps } from "./sign-in-form-props.ts";

export type SignInProps = {
  /** Stay on the page after signing in (the app's after-sign-in page is the default). */
  noRedirect?: boolean;
  /** Called after a successful sign-in. */
  onSignIn?: () => void;
};

/** What a project lets users sign in with (the client view of its config). */
export function enabledMethods(project: Project) {
  const config = project.config;
  return {
    password: config.credentialEnabled,
    emailCode: config.magicLinkEnabled,
    passkey: config.passkeyEnabled,
    oauth: config.oauthProviders.map((provider) => provider.id),
    signUp: config.signUpEnabled,
  };
}

/** The sign-in card: the project's enabled methods, and links to sign-up and forgot-password. */
export function SignIn(props: SignInProps) {
  return (
    <PageBoundary>
      <SignInCard {...props} />
    </PageBoundary>
  );
}

function SignInCard({ noRedirect, onSignIn }: SignInProps) {
  const s = useStrings();
  const app = useGatehouseApp();
  const project = useProject();
  const user = useUser();
  const [signingIn, setSigningIn] = useState(false);
  const methods = enabledMethods(project);
  const [tab, setTab] = useState<"password" | "emailCode">(methods.password ? "password" : "emailCode");

  if (user && !signingIn) return <AlreadySignedIn user={user} />;

  // While a sign-in runs, the user appears before the page moves on; keep the form up instead of flashing
  // the "already signed in" card.
  const formProps = { noRedirect, track: setSigningIn, onSuccess: () => onSignIn?.() };
  const forms: ReactNode[] = [];
  if (methods.password && methods.emailCode) {
    forms.push(
      <div className="gh-tabs" role="tablist" aria-label={s.signInMethods} key="tabs">
        {(["password", "emailCode"] as const).map((name) => (
          <button
            key={name}
            type="button"
            role="tab"
            id={`gh-tab-${name}`}
            aria-selected={tab === name}
            aria-controls="gh-sign-in-panel"
            className="gh-tab"
            tabIndex={tab === name ? 0 : -1}
            onClick={() => setTab(name)}
            onKeyDown={(event) => {
              // Arrow keys move between the two tabs (WAI-ARIA tabs pattern).
              if (event.key !== "ArrowLeft" && event.key !== "ArrowRight") return;
              event.preventDefault();
              const next = tab === "password" ? "emailCode" : "password";
              setTab(next);
              document.getElementById(`gh-tab-${next}`)?.focus();
            }}
          >
            {name === "password" ? s.tabPassword : s.tabEmailCode}
          </button>
        ))}
      </div>,
    );
  }
  const panel =
    methods.password && tab === "password" ? (
      <PasswordSignInForm {...formProps} />
    ) : methods.emailCode ? (
      <EmailCodeForm {...formProps} />
    ) : null;
  if (panel) {
    forms.push(
      methods.password && methods.emailCode ? (
        <div key="panel" id="gh-sign-in-panel" role="tabpanel" aria-labelledby={`gh-tab-${tab}`}>
          {panel}
        </div>
      ) : (
        <div key="panel">{panel}</div>
      ),
    );
  }
  const hasForm = forms.length > 0;
  const alternatives = methods.oauth.length > 0 || methods.passkey;

  return (
    <CardPage>
      <CardHeader title={s.signInTitle} subtitle={s.signInSubtitle(project.displayName)} />
      <div className="gh-stack">
        {methods.oauth.length > 0 ? <OAuthButtons providers={methods.oauth} /> : null}
        {methods.passkey ? <PasskeyButton {...formProps} /> : null}
        {alternatives && hasForm ? <Divider label={s.or} /> : null}
        {forms}
        {!hasForm && !alternatives ? <Alert tone="info">{s.noSignInMethods}</Alert> : null}
      </div>
      {methods.signUp ? (
        <p className="gh-card-footer">
          {s.noAccount} <AppLink href={withCurrentReturnTo(app.urls.signUp)}>{s.signUpLink}</AppLink>
        </p>
      ) : null}
      <Brand />
    </CardPage>
  );
}

function PasswordSignInForm({ noRedirect, track, onSuccess }: SignInFormProps) {
  const s = useStrings();
  const app = useGatehouseApp();
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [errors, setErrors] = useState<Errors<"email" | "password">>({});
  const action = useFormAction({ onThrow: () => track(false) });

  const onSubmit = () => {
    const found = { email: validateEmail(email, s), password: required(password, s) };
    setErrors(found);
    if (hasErrors(found)) return action.reset();
    void action.run(async () => {
      track(true);
      const result = await app.signInWithCredential({ email: email.trim(), password, noRedirect: true });
      if (result.status === "error") {
        // The SDK has already sent the user on to the MFA page.
        if (result.error.code === "MULTI_FACTOR_AUTHENTICATION_REQUIRED") return;
        track(false);
        const described = describeError(result.error, s);
        setErrors({
          [described.field === "email" ? "email" : described.field === "form" ? "form" : "password"]:
            described.message,
        });
        return;
      }
      onSuccess();
      if (!noRedirect) await app.redirectToAfterSignIn({ replace: true });
    });
  };

  return (
    <Form
      onSubmit={onSubmit}
      error={errors.form ?? action.error}
      submitLabel={s.signInButton}
      pending={action.pending}
    >
      <EmailField value={email} onValueChange={setEmail} error={errors.email} />
      <PasswordField
        label={s.password}
        name="password"
        autoComplete="current-password"
        value={password}
        onValueChange={setPassword}
        error={errors.password}
        labelAside={
          <AppLink href={withCurrentReturnTo(app.urls.forgotPassword)} className="gh-link gh-link-muted">
            {s.forgotPasswordLink}
          </AppLink>
        }
      />
    </Form>
  );
}

export function OAuthButtons({ providers }: { providers: string[] }) {
  const s = useStrings();
  const app = useGatehouseApp();
  const action = useFormAction();
  const [chosen, setChosen] = useState<string>();
  return (
    <div className="gh-stack-sm">
      {action.error ? <Alert>{action.error}</Alert> : null}
      {providers.map((id) => {
        const info = providerInfo(id);
        return (
          <Button
            key={id}
            block
            variant="secondary"
            loading={action.pending && chosen === id}
            disabled={action.pending}
            onClick={() => {
              setChosen(id);
              const returnTo = new URL(window.location.href).searchParams.get("after_auth_return_to");
              void action.run(() => app.signInWithOAuth(id, returnTo ? { returnTo } : {}));
            }}
          >
            <span className="gh-provider-icon" style={{ background: info.color }}>
              {info.letter}
            </span>
            {s.continueWith(info.name)}
          </Button>
        );
      })}
    </div>
  );
}

/** Passkey sign-in; the SDK goes on to the after-sign-in page by itself. */
function PasskeyButton({ track, onSuccess }: SignInFormProps) {
  const s = useStrings();
  const app = useGatehouseApp();
  const action = useFormAction({ onThrow: () => track(false) });
  return (
    <div className="gh-stack-sm">
      {action.error ? <Alert>{action.error}</Alert> : null}
      <Button
        block
        variant="secondary"
        loading={action.pending}
        onClick={() =>
          action.run(async () => {
            track(true);
            const result = await app.signInWithPasskey();
            if (result.status === "error") {
              if (result.error.code === "MULTI_FACTOR_AUTHENTICATION_REQUIRED") return;
              track(false);
              action.fail(result.error);
              return;
            }
            onSuccess();
          })
        }
      >
        <FingerprintIcon />
        {s.signInWithPasskey}
      </Button>
    </div>
  );
}
