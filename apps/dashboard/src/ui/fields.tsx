import type { InputHTMLAttributes, ReactNode, TextareaHTMLAttributes } from "react";
import { Field } from "./components.tsx";

type FieldProps = { label: ReactNode; hint?: ReactNode; error?: string | null };

/** A labelled text input (any text type: email, url, password, number…); a change hands back the text. */
export function TextField({
  label,
  hint,
  error,
  onChange,
  type = "text",
  ...input
}: FieldProps &
  Omit<InputHTMLAttributes<HTMLInputElement>, "onChange" | "value"> & {
    value: string | number;
    onChange: (value: string) => void;
  }) {
  return (
    <Field label={label} hint={hint} error={error}>
      <input type={type} {...input} onChange={(event) => onChange(event.target.value)} />
    </Field>
  );
}

/** A labelled text area; a change hands back the text. */
export function TextAreaField({
  label,
  hint,
  error,
  onChange,
  ...textarea
}: FieldProps &
  Omit<TextareaHTMLAttributes<HTMLTextAreaElement>, "onChange" | "value"> & {
    value: string;
    onChange: (value: string) => void;
  }) {
  return (
    <Field label={label} hint={hint} error={error}>
      <textarea {...textarea} onChange={(event) => onChange(event.target.value)} />
    </Field>
  );
}

/** A checkbox with its words after it; a change hands back whether it is ticked. */
export function Checkbox({
  children,
  onChange,
  className = "checkbox",
  ...input
}: Omit<InputHTMLAttributes<HTMLInputElement>, "onChange" | "type"> & {
  checked: boolean;
  onChange: (checked: boolean) => void;
  children: ReactNode;
}) {
  return (
    <label className={className}>
      <input type="checkbox" {...input} onChange={(event) => onChange(event.target.checked)} />
      {children}
    </label>
  );
}
