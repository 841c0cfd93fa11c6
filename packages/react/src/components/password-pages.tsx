import { useState } from "react";
import { useStrings } from "../context.ts";
import { useGatehouseApp } from "../hooks.ts";
import { PageBoundary } from "../internal/boundary.tsx";
import { describeError } from "../internal/errors.ts";
import { EmailField, Form, NewPasswordFields } from "../internal/fields.tsx";
import { AlertIcon, LockIcon, MailIcon } from "../internal/icons.tsx";
import { useOnce, useQueryParam } from "../internal/once.ts";
import { withCurrentReturnTo } from "../internal/router.ts";
import { AppLink, Brand, CardHeader, CardPage, DoneCard, Loading } from "../internal/ui.tsx";
import { useFormAction } from "../internal/use-action.ts";
import {
  type Errors,
  hasErrors,
  validateEmail,
  validateNewPassword,
  validateRepeat,
} from "../internal/validation.ts";

/** Asks for an e-mail and sends the password-reset link. */
export function ForgotPassword() {
  const s = useStrings();
  const app = useGatehouseApp();
  const [email, setEmail] = useState("");
  const [errors, setErrors] = useState<Errors<"email">>({});
  const [sentTo, setSentTo] = useState<string | null>(null);
  const action = useFormAction();
  const failed = action.placed(["email"]);

  const onSubmit = () => {
    const found = { email: validateEmail(email, s) };
    setErrors(found);
    if (hasErrors(found)) return action.reset();
    void action.run(async () => {
      const result = await app.sendForgotPasswordEmail(email.trim());
      if (result.status === "error") {
        setErrors({ email: describeError(result.error, s).message });
        return;
      }
      setSentTo(email.trim());
    });
  };

  if (sentTo !== null) {
    return (
      <CardPage>
        <CardHeader title={s.resetLinkSentTitle} subtitle={s.resetLinkSent(sentTo)} icon={<MailIcon />} />
        <p className="gh-center">
          <AppLink href={withCurrentReturnTo(app.urls.signIn)}>{s.backToSignIn}</AppLink>
        </p>
      </CardPage>
    );
  }
  return (
    <CardPage>
      <CardHeader title={s.forgotPasswordTitle} subtitle={s.forgotPasswordSubtitle} icon={<LockIcon />} />
      <Form
        onSubmit={onSubmit}
        error={errors.form ?? failed.form}
        submitLabel={s.sendResetLink}
        pending={action.pending}
      >
        <EmailField value={email} onValueChange={setEmail} error={errors.email ?? failed.email} />
      </Form>
      <p className="gh-card-footer">
        <AppLink href={withCurrentReturnTo(app.urls.signIn)}>{s.backToSignIn}</AppLink>
      </p>
      <Brand />
    </CardPage>
  );
}

/** Where a link e-mail's code is missing, wrong or spent: say so, and offer the way to get a new one. */
export function BadLinkCard({
  message,
  retryHref,
  retryLabel,
}: {
  message: string;
  retryHref?: string;
  retryLabel?: string;
}) {
  const s = useStrings();
  const app = useGatehouseApp();
  return (
    <CardPage>
      <CardHeader title={s.errorTitle} subtitle={message} icon={<AlertIcon />} tone="danger" />
      <p className="gh-center">
        <AppLink href={retryHref ?? app.urls.signIn}>{retryLabel ?? s.backToSignIn}</AppLink>
      </p>
    </CardPage>
  );
}

/** The page of the password-reset link: checks the code, then takes the new password. */
export function PasswordReset({ code: givenCode }: { code?: string }) {
  const s = useStrings();
  const code = useQueryParam("code", givenCode);
  if (!code) return <BadLinkCard message={s.linkMissingCode} />;
  return (
    <PageBoundary
      fallback={
        <CardPage>
          <Loading label={s.checkingLink} />
        </CardPage>
      }
    >
      <PasswordResetForm code={code} />
    </PageBoundary>
  );
}

function PasswordResetForm({ code }: { code: string }) {
  const s = useStrings();
  const app = useGatehouseApp();
  const checkKey = `password-reset:${code}`;
  const check = useOnce(checkKey, async () => app.verifyPasswordResetCode(code));
  const [password, setPassword] = useState("");
  const [repeat, setRepeat] = useState("");
  const [errors, setErrors] = useState<Errors<"password" | "passwordRepeat" | "code">>({});
  const [done, setDone] = useState(false);
  const action = useFormAction();
  // A failure the page did not foresee is shown where the link's own problems are, with a new link offered.
  const codeError = errors.code ?? action.error;

  const forgot = app.urls.forgotPassword;
  if (!check.ok)
    return (
      <BadLinkCard
        message={describeError(check.error, s, { link: true }).message}
        retryHref={forgot}
        retryLabel={s.sendResetLink}
      />
    );
  if (check.value.status === "error" && !done) {
    return (
      <BadLinkCard
        message={describeError(check.value.error, s, { link: true }).message}
        retryHref={forgot}
        retryLabel={s.sendResetLink}
      />
    );
  }
  if (done) {
    return (
      <DoneCard title={s.passwordResetDoneTitle} subtitle={s.passwordResetDone}>
        <AppLink href={app.urls.signIn} className="gh-button gh-button-block">
          {s.signInLink}
        </AppLink>
      </DoneCard>
    );
  }

  const onSubmit = () => {
    const found = {
      password: validateNewPassword(password, s),
      passwordRepeat: validateRepeat(password, repeat, s),
    };
    setErrors(found);
    if (hasErrors(found)) return action.reset();
    void action.run(async () => {
      const result = await app.resetPassword({ code, password });
      if (result.status === "error") {
        const described = describeError(result.error, s, { link: true });
        setErrors({ [described.field === "password" ? "password" : "code"]: described.message });
        return;
      }
      setDone(true);
    });
  };

  return (
    <CardPage>
      <CardHeader title={s.passwordResetTitle} subtitle={s.passwordResetSubtitle} icon={<LockIcon />} />
      <Form
        onSubmit={onSubmit}
        error={
          codeError ? (
            <>
              {codeError} <AppLink href={forgot}>{s.sendResetLink}</AppLink>
            </>
          ) : null
        }
        submitLabel={s.resetPasswordButton}
        pending={action.pending}
      >
        <NewPasswordFields
          label={s.newPassword}
          password={password}
          repeat={repeat}
          onPasswordChange={setPassword}
          onRepeatChange={setRepeat}
          errors={errors}
          autoFocus
        />
      </Form>
      <Brand />
    </CardPage>
  );
}
