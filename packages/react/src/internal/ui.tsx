import { type ButtonHTMLAttributes, type MouseEvent, type ReactNode, useContext, useId } from "react";
import { GatehouseContext, useStrings } from "../context.ts";
import { AlertIcon, CheckCircleIcon, GateIcon, InfoIcon } from "./icons.tsx";
import { appNavigate } from "./router.ts";

/** The themed, scoped container every public component renders in. */
export function Root({ children, className }: { children: ReactNode; className?: string }) {
  const theme = useContext(GatehouseContext)?.theme ?? "system";
  return (
    <div className={className ? `gh-root ${className}` : "gh-root"} data-gh-theme={theme}>
      {children}
    </div>
  );
}

/** A centered card, the frame of the sign-in pages. */
export function CardPage({ children }: { children: ReactNode }) {
  return (
    <Root>
      <main className="gh-page">
        <div className="gh-card">{children}</div>
      </main>
    </Root>
  );
}

export type MarkTone = "brand" | "success" | "danger" | "muted";

export function CardHeader({
  title,
  subtitle,
  icon,
  tone = "brand",
}: {
  title: string;
  subtitle?: ReactNode;
  icon?: ReactNode;
  tone?: MarkTone;
}) {
  return (
    <header className="gh-card-header">
      <span className={tone === "brand" ? "gh-mark" : `gh-mark gh-mark-${tone}`}>{icon ?? <GateIcon />}</span>
      <h1 className="gh-title">{title}</h1>
      {subtitle ? <p className="gh-subtitle">{subtitle}</p> : null}
    </header>
  );
}

export type ButtonVariant = "primary" | "secondary" | "ghost" | "danger" | "danger-outline";

export function Button({
  variant = "primary",
  block,
  small,
  loading,
  className,
  children,
  disabled,
  type = "button",
  ...props
}: ButtonHTMLAttributes<HTMLButtonElement> & {
  variant?: ButtonVariant;
  block?: boolean;
  small?: boolean;
  loading?: boolean;
}) {
  const classes = [
    "gh-button",
    variant === "primary" ? "" : `gh-button-${variant}`,
    block ? "gh-button-block" : "",
    small ? "gh-button-sm" : "",
    className ?? "",
  ]
    .filter(Boolean)
    .join(" ");
  return (
    <button
      {...props}
      type={type}
      className={classes}
      disabled={disabled || loading}
      aria-busy={loading || undefined}
    >
      {children}
      {loading ? <span className="gh-spinner" aria-hidden="true" /> : null}
    </button>
  );
}

export function Alert({
  tone = "error",
  children,
  title,
}: {
  tone?: "error" | "success" | "info";
  children: ReactNode;
  title?: string;
}) {
  const icon = tone === "error" ? <AlertIcon /> : tone === "success" ? <CheckCircleIcon /> : <InfoIcon />;
  return (
    <div className={`gh-alert gh-alert-${tone}`} role={tone === "error" ? "alert" : "status"}>
      {icon}
      <div className="gh-alert-body">
        {title ? <strong>{title} </strong> : null}
        {children}
      </div>
    </div>
  );
}

export function Divider({ label }: { label: string }) {
  return (
    <div className="gh-divider" aria-hidden="true">
      {label}
    </div>
  );
}

export function Spinner({ large }: { large?: boolean }) {
  return <span className={large ? "gh-spinner gh-spinner-lg" : "gh-spinner"} aria-hidden="true" />;
}

export function Loading({ label }: { label?: string }) {
  const s = useStrings();
  return (
    <div className="gh-loading" role="status" aria-live="polite">
      <Spinner large />
      <span>{label ?? s.loading}</span>
    </div>
  );
}

/** The suspense fallback of a card page. */
export function LoadingCard({ label }: { label?: string }) {
  return (
    <CardPage>
      <Loading {...(label ? { label } : {})} />
    </CardPage>
  );
}

export function initials(name: string | null | undefined, fallback = "?"): string {
  const words = (name ?? "")
    .replace(/@.*/, "")
    .split(/[\s._-]+/)
    .filter(Boolean);
  const letters = words.length >= 2 ? words[0]![0]! + words[1]![0]! : (words[0]?.slice(0, 2) ?? fallback);
  return letters.toUpperCase();
}

export function Avatar({
  name,
  imageUrl,
  large,
  team,
}: {
  name: string | null | undefined;
  imageUrl?: string | null;
  large?: boolean;
  team?: boolean;
}) {
  const classes = ["gh-avatar", large ? "gh-avatar-lg" : "", team ? "gh-avatar-team" : ""]
    .filter(Boolean)
    .join(" ");
  return (
    <span className={classes} aria-hidden="true">
      {imageUrl ? <img src={imageUrl} alt="" /> : initials(name)}
    </span>
  );
}

/** A link to a page of the app; plain clicks navigate in place (handler pages switch without reloading). */
export function AppLink({
  href,
  children,
  className,
  replace,
  current,
}: {
  href: string;
  children: ReactNode;
  className?: string;
  replace?: boolean;
  /** Marks the link of the page (or section) being shown. */
  current?: boolean;
}) {
  const context = useContext(GatehouseContext);
  const onClick = (event: MouseEvent<HTMLAnchorElement>) => {
    if (!context || event.defaultPrevented || event.button !== 0) return;
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    appNavigate(context.app, href, { replace: replace ?? false });
  };
  return (
    <a
      href={href}
      className={className ?? "gh-link"}
      onClick={onClick}
      aria-current={current ? "true" : undefined}
    >
      {children}
    </a>
  );
}

export function Switch({
  checked,
  onChange,
  label,
  disabled,
}: {
  checked: boolean;
  onChange: (checked: boolean) => void;
  label: string;
  disabled?: boolean;
}) {
  return (
    <button
      type="button"
      role="switch"
      className="gh-switch"
      aria-checked={checked}
      aria-label={label}
      disabled={disabled}
      onClick={() => onChange(!checked)}
    />
  );
}

export function Brand() {
  const s = useStrings();
  return <p className="gh-brand">{s.poweredBy}</p>;
}

/** A titled card of a settings page. */
export function Section({
  id,
  title,
  description,
  danger,
  children,
}: {
  id?: string;
  title: string;
  description?: ReactNode;
  danger?: boolean;
  children: ReactNode;
}) {
  const headingId = useId();
  return (
    <section
      id={id}
      className={danger ? "gh-section gh-section-danger" : "gh-section"}
      aria-labelledby={headingId}
    >
      <header className="gh-section-header">
        <h2 className="gh-section-title" id={headingId}>
          {title}
        </h2>
        {description ? <p className="gh-muted">{description}</p> : null}
      </header>
      <div className="gh-section-body">{children}</div>
    </section>
  );
}

/** Dates as people read them, in their own locale. */
export function formatDate(date: Date | undefined | null): string {
  if (!date || Number.isNaN(date.getTime())) return "";
  return date.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}
