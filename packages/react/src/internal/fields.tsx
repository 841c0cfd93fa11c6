import { type InputHTMLAttributes, type ReactNode, useId, useState } from "react";
import { useStrings } from "../context.ts";
import { AlertIcon, EyeIcon, EyeOffIcon } from "./icons.tsx";
import { Alert, Button } from "./ui.tsx";
import { PASSWORD_MIN_LENGTH } from "./validation.ts";

/** Form building blocks the sign-in, sign-up and password pages share: labelled fields with their errors. */
export function FieldError({ id, message }: { id: string; message: string | undefined }) {
  if (!message) return null;
  return (
    <p className="gh-field-error" id={id}>
      <AlertIcon />
      <span>{message}</span>
    </p>
  );
}

type TextFieldProps = Omit<InputHTMLAttributes<HTMLInputElement>, "onChange" | "value"> & {
  label: string;
  value: string;
  onValueChange: (value: string) => void;
  error?: string | undefined;
  hint?: ReactNode;
  /** Shown at the right of the label (e.g. "Forgot password?"). */
  labelAside?: ReactNode;
  inputClassName?: string;
  /** A button inside the input (e.g. show password). */
  trailing?: ReactNode;
};

export function TextField({
  label,
  value,
  onValueChange,
  error,
  hint,
  labelAside,
  inputClassName,
  trailing,
  id: givenId,
  ...input
}: TextFieldProps) {
  const autoId = useId();
  const id = givenId ?? autoId;
  const errorId = `${id}-error`;
  const hintId = `${id}-hint`;
  const describedBy = [error ? errorId : null, hint ? hintId : null].filter(Boolean).join(" ") || undefined;
  const classes = ["gh-input", trailing ? "gh-input-with-button" : "", inputClassName ?? ""]
    .filter(Boolean)
    .join(" ");
  return (
    <div className="gh-field">
      <div className="gh-label-row">
        <label className="gh-label" htmlFor={id}>
          {label}
        </label>
        {labelAside}
      </div>
      <div className="gh-input-wrap">
        <input
          {...input}
          id={id}
          className={classes}
          value={value}
          onChange={(event) => onValueChange(event.target.value)}
          aria-invalid={error ? true : undefined}
          aria-describedby={describedBy}
        />
        {trailing}
      </div>
      {hint && !error ? (
        <p className="gh-hint" id={hintId}>
          {hint}
        </p>
      ) : null}
      <FieldError id={errorId} message={error} />
    </div>
  );
}

/** A password input with a show/hide toggle. */
export function PasswordField(props: Omit<TextFieldProps, "type" | "trailing">) {
  const s = useStrings();
  const [visible, setVisible] = useState(false);
  return (
    <TextField
      {...props}
      type={visible ? "text" : "password"}
      trailing={
        <button
          type="button"
          className="gh-input-button"
          onClick={() => setVisible((v) => !v)}
          aria-label={visible ? s.hidePassword : s.showPassword}
          aria-pressed={visible}
        >
          {visible ? <EyeOffIcon /> : <EyeIcon />}
        </button>
      }
    />
  );
}

/** The e-mail input of the sign-in, sign-up and reset forms. */
export function EmailField(props: Pick<TextFieldProps, "value" | "onValueChange" | "error">) {
  const s = useStrings();
  return (
    <TextField
      {...props}
      label={s.email}
      type="email"
      name="email"
      autoComplete="email"
      placeholder={s.emailPlaceholder}
    />
  );
}

/**
 * A new password (with the length hint) and its repeat, as sign-up, password reset and the account's password form
 * ask for them. `name` names the first input; the repeat is `${name}Repeat`.
 */
export function NewPasswordFields({
  label,
  name = "password",
  password,
  repeat,
  onPasswordChange,
  onRepeatChange,
  errors,
  autoFocus,
}: {
  label: string;
  name?: string;
  password: string;
  repeat: string;
  onPasswordChange: (value: string) => void;
  onRepeatChange: (value: string) => void;
  errors: { password?: string | undefined; passwordRepeat?: string | undefined };
  autoFocus?: boolean;
}) {
  const s = useStrings();
  return (
    <>
      <PasswordField
        label={label}
        name={name}
        autoComplete="new-password"
        value={password}
        onValueChange={onPasswordChange}
        error={errors.password}
        hint={s.passwordHint(PASSWORD_MIN_LENGTH)}
        {...(autoFocus ? { autoFocus } : {})}
      />
      <PasswordField
        label={s.repeatPassword}
        name={`${name}Repeat`}
        autoComplete="new-password"
        value={repeat}
        onValueChange={onRepeatChange}
        error={errors.passwordRepeat}
      />
    </>
  );
}

/** A card's form: the error about the whole attempt above the fields, one full-width submit button below. */
export function Form({
  onSubmit,
  error,
  submitLabel,
  pending,
  children,
}: {
  onSubmit: () => void;
  error?: ReactNode;
  submitLabel: string;
  pending: boolean;
  children: ReactNode;
}) {
  return (
    <form
      className="gh-form"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        onSubmit();
      }}
    >
      {error ? <Alert>{error}</Alert> : null}
      {children}
      <Button type="submit" block loading={pending}>
        {submitLabel}
      </Button>
    </form>
  );
}
