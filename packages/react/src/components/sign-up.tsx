import { useState } from "react";
import { useStrings } from "../context.ts";
import { useGatehouseApp, useProject, useUser } from "../hooks.ts";
import { PageBoundary } from "../internal/boundary.tsx";
import { describeError } from "../internal/errors.ts";
import { EmailField, Form, NewPasswordFields } from "../internal/fields.tsx";
import { withCurrentReturnTo } from "../internal/router.ts";
import { Alert, AppLink, Brand, CardHeader, CardPage, Divider } from "../internal/ui.tsx";
import { useFormAction } from "../internal/use-action.ts";
import {
  type Errors,
  hasErrors,
  validateEmail,
  validateNewPassword,
  validateRepeat,
} from "../internal/validation.ts";
import { AlreadySignedIn } from "./already-signed-in.tsx";
import { EmailCodeForm } from "./email-code-form.tsx";
import { enabledMethods, OAuthButtons } from "./sign-in.tsx";
import type { SignInFormProps } from "./sign-in-form-props.ts";

export type SignUpProps = {
  /** Stay on the page after signing up (the app's after-sign-up page is the default). */
  noRedirect?: boolean;
  onSignUp?: () => void;
};

/** The sign-up card: e-mail and password (or e-mail code), and the project's OAuth providers. */
export function SignUp(props: SignUpProps) {
  return (
    <PageBoundary>
      <SignUpCard {...props} />
    </PageBoundary>
  );
}

function SignUpCard({ noRedirect, onSignUp }: SignUpProps) {
  const s = useStrings();
  const app = useGatehouseApp();
  const project = useProject();
  const user = useUser();
  const [signingUp, setSigningUp] = useState(false);
  const methods = enabledMethods(project);

  if (user && !signingUp) return <AlreadySignedIn user={user} />;

  const formProps: SignInFormProps = { noRedirect, track: setSigningUp, onSuccess: () => onSignUp?.() };
  const form = methods.password ? (
    <PasswordSignUpForm {...formProps} />
  ) : methods.emailCode ? (
    <EmailCodeForm {...formProps} />
  ) : null;

  return (
    <CardPage>
      <CardHeader title={s.signUpTitle} subtitle={s.signUpSubtitle(project.displayName)} />
      {methods.signUp ? (
        <div className="gh-stack">
          {methods.oauth.length > 0 ? <OAuthButtons providers={methods.oauth} /> : null}
          {methods.oauth.length > 0 && form ? <Divider label={s.or} /> : null}
          {form}
          {!form && methods.oauth.length === 0 ? <Alert tone="info">{s.noSignInMethods}</Alert> : null}
        </div>
      ) : (
        <Alert tone="info">{s.signUpDisabled}</Alert>
      )}
      <p className="gh-card-footer">
        {s.haveAccount} <AppLink href={withCurrentReturnTo(app.urls.signIn)}>{s.signInLink}</AppLink>
      </p>
      <Brand />
    </CardPage>
  );
}

type Field = "email" | "password" | "passwordRepeat";

function PasswordSignUpForm({ noRedirect, track, onSuccess }: SignInFormProps) {
  const s = useStrings();
  const app = useGatehouseApp();
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [repeat, setRepeat] = useState("");
  const [errors, setErrors] = useState<Errors<Field>>({});
  const [submitted, setSubmitted] = useState(false);
  const action = useFormAction({ onThrow: () => track(false) });

  const validate = (values: { email: string; password: string; repeat: string }): Errors<Field> => ({
    email: validateEmail(values.email, s),
    password: validateNewPassword(values.password, s),
    passwordRepeat: validateRepeat(values.password, values.repeat, s),
  });
  // After a first attempt, fields re-check as the user types so that fixed errors go away.
  const change = (field: "email" | "password" | "repeat", value: string) => {
    const next = { email, password, repeat, [field]: value };
    if (field === "email") setEmail(value);
    else if (field === "password") setPassword(value);
    else setRepeat(value);
    if (submitted) {
      setErrors(validate(next));
      action.reset();
    }
  };

  const onSubmit = () => {
    setSubmitted(true);
    const found = validate({ email, password, repeat });
    setErrors(found);
    if (hasErrors(found)) return action.reset();
    void action.run(async () => {
      track(true);
      const result = await app.signUpWithCredential({ email: email.trim(), password, noRedirect: true });
      if (result.status === "error") {
        if (result.error.code === "MULTI_FACTOR_AUTHENTICATION_REQUIRED") return;
        track(false);
        const described = describeError(result.error, s);
        const field =
          described.field === "email" || described.field === "password" ? described.field : "form";
        setErrors({ [field]: described.message });
        return;
      }
      onSuccess();
      if (!noRedirect) await app.redirectToAfterSignUp({ replace: true });
    });
  };

  return (
    <Form
      onSubmit={onSubmit}
      error={errors.form ?? action.error}
      submitLabel={s.signUpButton}
      pending={action.pending}
    >
      <EmailField value={email} onValueChange={(value) => change("email", value)} error={errors.email} />
      <NewPasswordFields
        label={s.password}
        password={password}
        repeat={repeat}
        onPasswordChange={(value) => change("password", value)}
        onRepeatChange={(value) => change("repeat", value)}
        errors={errors}
      />
    </Form>
  );
}
