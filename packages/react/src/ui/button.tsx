import type { ButtonHTMLAttributes } from "react";
import { useStrings } from "../context.ts";

export type ButtonVariant = "primary" | "secondary" | "ghost" | "danger" | "danger-outline";

export type ButtonProps = ButtonHTMLAttributes<HTMLButtonElement> & {
  variant?: ButtonVariant;
  block?: boolean;
  small?: boolean;
  /** Disables the button and shows a spinner in place of its text (which keeps its width). */
  loading?: boolean;
};

/** The classes of a button's look, for a link or label that must look like one (`<a className={buttonClass()}>`). */
export function buttonClass(options: Pick<ButtonProps, "variant" | "block" | "small" | "className"> = {}) {
  const { variant = "primary", block, small, className } = options;
  return [
    "gh-button",
    variant === "primary" ? "" : `gh-button-${variant}`,
    block ? "gh-button-block" : "",
    small ? "gh-button-sm" : "",
    className ?? "",
  ]
    .filter(Boolean)
    .join(" ");
}

export function Button({
  variant,
  block,
  small,
  loading,
  className,
  children,
  disabled,
  type = "button",
  ...props
}: ButtonProps) {
  return (
    <button
      {...props}
      type={type}
      className={buttonClass({ variant, block, small, className })}
      disabled={disabled || loading}
      aria-busy={loading || undefined}
    >
      {children}
      {loading ? <Spinner /> : null}
    </button>
  );
}

export function Spinner({ large }: { large?: boolean }) {
  return <span className={large ? "gh-spinner gh-spinner-lg" : "gh-spinner"} aria-hidden="true" />;
}

/** A spinner with words under it ("Loading…" in the provider's texts), for a part of a page that is loading. */
export function Loading({ label, testId }: { label?: string; testId?: string }) {
  const s = useStrings();
  return (
    <div className="gh-loading" role="status" aria-live="polite" data-testid={testId}>
      <Spinner large />
      <span>{label ?? s.loading}</span>
    </div>
  );
}
