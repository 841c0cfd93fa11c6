import type { InputHTMLAttributes, ReactNode, SelectHTMLAttributes, TextareaHTMLAttributes } from "react";
import { useState } from "react";
import { Field } from "./components.tsx";

type FieldProps = { label: ReactNode; hint?: ReactNode; error?: string | null };

type TextInputProps = Omit<InputHTMLAttributes<HTMLInputElement>, "onChange" | "value"> & {
  value: string | number;
  onChange: (value: string) => void;
};

/** A text input (any text type: email, url, search, number…) whose change hands back the text. */
export function TextInput({ onChange, type = "text", ...input }: TextInputProps) {
  return <input type={type} {...input} onChange={(event) => onChange(event.target.value)} />;
}

/**
 * A select whose change hands back the chosen value; its choices are `options` ([value, label] pairs, after a
 * `placeholder` choice of "" when given) or its own <option> children.
 */
export function Select<T extends string>({
  onChange,
  options,
  placeholder,
  children,
  ...select
}: Omit<SelectHTMLAttributes<HTMLSelectElement>, "onChange" | "value"> & {
  value: T;
  onChange: (value: T) => void;
  options?: readonly (readonly [T, ReactNode])[];
  placeholder?: ReactNode;
}) {
  return (
    <select {...select} onChange={(event) => onChange(event.target.value as T)}>
      {placeholder === undefined ? null : <option value="">{placeholder}</option>}
      {options?.map(([value, label]) => (
        <option key={value} value={value}>
          {label}
        </option>
      ))}
      {children}
    </select>
  );
}

/** A labelled text input (any text type: email, url, password, number…); a change hands back the text. */
/**
 * A field's value and its setter in the shape the fields take, so that a plain text field is
 * `const subject = useFieldState(""); <TextField name="subject" {...subject} />` and reads `subject.value`.
 */
export function useFieldState<T>(initial: T): { value: T; onChange: (value: T) => void } {
  const [value, onChange] = useState(initial);
  return { value, onChange };
}

export function TextField({ label, hint, error, ...input }: FieldProps & TextInputProps) {
  return (
    <Field label={label} hint={hint} error={error}>
      <TextInput {...input} />
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
