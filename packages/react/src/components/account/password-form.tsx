import { type FormEvent, useState } from "react";
import { useStrings } from "../../context.ts";
import { useUser } from "../../hooks.ts";
import { describeError } from "../../internal/errors.ts";
import { NewPasswordFields, PasswordField } from "../../internal/fields.tsx";
import { Alert, Button } from "../../internal/ui.tsx";
import { useFormAction } from "../../internal/use-action.ts";
import {
  type Errors,
  hasErrors,
  required,
  validateNewPassword,
  validateRepeat,
} from "../../internal/validation.ts";

type Field = "current" | "password" | "passwordRepeat";

/** Changes the password (asking for the current one), or sets a first one for users who have none. */
export function PasswordForm() {
  const s = useStrings();
  const user = useUser({ or: "throw", includeRestricted: true });
  const hasPassword = user.hasPassword;
  const [open, setOpen] = useState(false);
  const [current, setCurrent] = useState("");
  const [password, setPassword] = useState("");
  const [repeat, setRepeat] = useState("");
  const [errors, setErrors] = useState<Errors<Field>>({});
  const [done, setDone] = useState(false);
  const action = useFormAction();
  const formError = errors.form ?? action.error;

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const found: Errors<Field> = {
      current: hasPassword ? required(current, s) : undefined,
      password: validateNewPassword(password, s),
      passwordRepeat: validateRepeat(password, repeat, s),
    };
    setErrors(found);
    if (hasErrors(found)) return action.reset();
    void action.run(async () => {
      const error = hasPassword
        ? await user.updatePassword({ oldPassword: current, newPassword: password })
        : await user.setPassword({ password });
      if (error) {
        const described = describeError(error, s);
        setErrors(
          error.code === "PASSWORD_CONFIRMATION_MISMATCH"
            ? { current: described.message }
            : { [described.field === "password" ? "password" : "form"]: described.message },
        );
        return;
      }
      setCurrent("");
      setPassword("");
      setRepeat("");
      setOpen(false);
      setDone(true);
    });
  };

  return (
    <div className="gh-subsection">
      <div className="gh-subsection-text">
        <span className="gh-subsection-title">{s.passwordSection}</span>
        <span className="gh-muted">
          {hasPassword ? s.passwordDescriptionSet : s.passwordDescriptionUnset}
        </span>
        {done ? <Alert tone="success">{s.passwordChanged}</Alert> : null}
      </div>
      {open ? (
        <form className="gh-form" style={{ width: "100%", maxWidth: 420 }} onSubmit={onSubmit} noValidate>
          {formError ? <Alert>{formError}</Alert> : null}
          {hasPassword ? (
            <PasswordField
              label={s.currentPassword}
              name="currentPassword"
              autoComplete="current-password"
              value={current}
              onValueChange={setCurrent}
              error={errors.current}
            />
          ) : null}
          <NewPasswordFields
            label={s.newPassword}
            name="newPassword"
            password={password}
            repeat={repeat}
            onPasswordChange={setPassword}
            onRepeatChange={setRepeat}
            errors={errors}
          />
          <div className="gh-row-actions gh-row-actions-end">
            <Button variant="secondary" onClick={() => setOpen(false)}>
              {s.cancel}
            </Button>
            <Button type="submit" loading={action.pending}>
              {hasPassword ? s.changePassword : s.setPassword}
            </Button>
          </div>
        </form>
      ) : (
        <Button
          variant="secondary"
          onClick={() => {
            setOpen(true);
            setDone(false);
          }}
        >
          {hasPassword ? s.changePassword : s.setPassword}
        </Button>
      )}
    </div>
  );
}
