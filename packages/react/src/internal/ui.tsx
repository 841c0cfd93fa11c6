import { type MouseEvent, type ReactNode, useContext, useId } from "react";
import { GatehouseContext, useGatehouseContext, useStrings } from "../context.ts";
import { Avatar } from "../ui/avatar.tsx";
import { Button, Loading } from "../ui/button.tsx";
import { List, ListRow } from "../ui/list.tsx";
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

/** A card page saying something is done (a check mark, in the success tone), with what to do next below it. */
export function DoneCard({
  title,
  subtitle,
  continueHome,
  children,
}: {
  title: string;
  subtitle: ReactNode;
  /** The next step is the app's home page: a full-width "Continue" button to it. */
  continueHome?: boolean;
  children?: ReactNode;
}) {
  return (
    <CardPage>
      <CardHeader title={title} subtitle={subtitle} icon={<CheckCircleIcon />} tone="success" />
      {continueHome ? <ContinueHome /> : null}
      {children}
    </CardPage>
  );
}

function ContinueHome() {
  const s = useStrings();
  const { app } = useGatehouseContext();
  return (
    <Button block onClick={() => appNavigate(app, app.urls.home)}>
      {s.continue}
    </Button>
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

// The kit's parts, where the components have always found them.
export { Avatar, initials } from "../ui/avatar.tsx";
export { Button, type ButtonVariant, Loading, Spinner } from "../ui/button.tsx";
export { formatDate } from "../ui/dates.ts";

/** Whom a confirmation page is about: picture, name, and the email under it when the name is another text. */
export function UserSummary({ user, name }: { user: UserLike; name: string }) {
  return (
    <List>
      <ListRow
        leading={<Avatar name={name} imageUrl={user.profileImageUrl} />}
        title={name}
        meta={user.displayName && user.primaryEmail}
      />
    </List>
  );
}

type UserLike = { displayName: string | null; primaryEmail: string | null; profileImageUrl: string | null };

/** The suspense fallback of a card page. */
export function LoadingCard({ label }: { label?: string }) {
  return (
    <CardPage>
      <Loading {...(label ? { label } : {})} />
    </CardPage>
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
