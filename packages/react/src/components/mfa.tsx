import { MFA_ATTEMPT_CODE_STORAGE_KEY } from "@gatehouse/js";
import { type FormEvent, useState } from "react";
import { useStrings } from "../context.ts";
import { useGatehouseApp } from "../hooks.ts";
import { describeError } from "../internal/errors.ts";
import { TextField } from "../internal/fields.tsx";
import { ShieldIcon } from "../internal/icons.tsx";
import { withCurrentReturnTo } from "../internal/router.ts";
import { Alert, AppLink, Brand, Button, CardHeader, CardPage } from "../internal/ui.tsx";
import { useFormAction } from "../internal/use-action.ts";
import { TOTP_LENGTH } from "../internal/validation.ts";

function storedAttemptCode(): string | null {
  try {
    return typeof sessionStorage === "undefined"
      ? null
      : sessionStorage.getItem(MFA_ATTEMPT_CODE_STORAGE_KEY);
  } catch {
    return null;
  }
}

/**
 * The second step of a sign-in with two-factor authentication: the code of the authenticator app, checked with the
 * attempt code the first step left in session storage. Sends the form by itself once six digits are typed.
 */
export function MfaCodeEntry({ attemptCode: givenAttemptCode }: { attemptCode?: string }) {
  const s = useStrings();
  const app = useGatehouseApp();
  const [attemptCode] = useState(() => givenAttemptCode ?? storedAttemptCode());
  const [code, setCode] = useState("");
  const [errors, setErrors] = useState<{ code?: string | undefined; form?: string | undefined }>({});
  const action = useFormAction();
  const formError = errors.form ?? action.error;

  if (!attemptCode) {
    return (
      <CardPage>
        <CardHeader title={s.mfaTitle} subtitle={s.mfaNoAttempt} icon={<ShieldIcon />} tone="muted" />
        <AppLink href={withCurrentReturnTo(app.urls.signIn)} className="gh-button gh-button-block">
          {s.backToSignIn}
        </AppLink>
      </CardPage>
    );
  }

  const submit = (totp: string) => {
    if (!/^\d{6}$/.test(totp)) {
      setErrors({ code: totp === "" ? s.required : s.mfaCodeFormat });
      return;
    }
    setErrors({});
    void action.run(async () => {
      const result = await app.signInWithMfa(totp, attemptCode);
      if (result.status === "error") {
        const described = describeError(result.error, s);
        if (result.error.code === "INVALID_TOTP_CODE") setErrors({ code: described.message });
        else setErrors({ form: s.mfaNoAttempt });
        setCode("");
        return;
      }
      sessionStorage.removeItem(MFA_ATTEMPT_CODE_STORAGE_KEY);
    });
  };

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    submit(code);
  };

  return (
    <CardPage>
      <CardHeader title={s.mfaTitle} subtitle={s.mfaSubtitle} icon={<ShieldIcon />} />
      <form className="gh-form" onSubmit={onSubmit} noValidate>
        {formError ? (
          <Alert>
            {formError} <AppLink href={withCurrentReturnTo(app.urls.signIn)}>{s.backToSignIn}</AppLink>
          </Alert>
        ) : null}
        <TextField
          label={s.mfaCodeLabel}
          name="totp"
          inputMode="numeric"
          autoComplete="one-time-code"
          pattern="[0-9]*"
          maxLength={TOTP_LENGTH}
          inputClassName="gh-input-code"
          value={code}
          onValueChange={(value) => {
            const digits = value.replace(/\D/g, "").slice(0, TOTP_LENGTH);
            setCode(digits);
            if (digits.length === TOTP_LENGTH && !action.pending) submit(digits);
          }}
          error={errors.code}
          autoFocus
        />
        <Button type="submit" block loading={action.pending}>
          {s.mfaVerify}
        </Button>
      </form>
      <Brand />
    </CardPage>
  );
}
