import { Button, type ButtonProps } from "@gatehouse/react/ui";
import { type MouseEvent, type ReactNode, useState } from "react";

import { navigate } from "../router.tsx";
import { errorMessage } from "./hooks.ts";
import { useToast } from "./toast.tsx";

/** A button whose click runs an async action, with a spinner while it runs and a toast on failure. */
export function ActionButton(
  props: Omit<ButtonProps, "onClick"> & {
    onClick: () => Promise<unknown>;
    success?: string;
  },
) {
  const { onClick, success, ...rest } = props;
  const [busy, setBusy] = useState(false);
  const toast = useToast();
  return (
    <Button
      {...rest}
      loading={busy}
      onClick={async () => {
        setBusy(true);
        try {
          await onClick();
          if (success) toast.success(success);
        } catch (error) {
          toast.error(error);
        } finally {
          setBusy(false);
        }
      }}
    />
  );
}

export function Card(props: {
  title?: ReactNode;
  description?: ReactNode;
  actions?: ReactNode;
  footer?: ReactNode;
  children?: ReactNode;
  flush?: boolean;
  testId?: string;
}) {
  return (
    <section className="card" data-testid={props.testId}>
      {props.title || props.actions ? (
        <div className="card-head">
          <div>
            {props.title ? <h2>{props.title}</h2> : null}
            {props.description ? <p>{props.description}</p> : null}
          </div>
          {props.actions}
        </div>
      ) : null}
      {props.flush ? props.children : <div className="card-body">{props.children}</div>}
      {props.footer ? <div className="card-foot">{props.footer}</div> : null}
    </section>
  );
}

export function PageHead(props: {
  title: ReactNode;
  description?: ReactNode;
  actions?: ReactNode;
  crumb?: ReactNode;
}) {
  return (
    <div className="page-head">
      <div>
        {props.crumb ? <div className="breadcrumb">{props.crumb}</div> : null}
        <h1>{props.title}</h1>
        {props.description ? <p>{props.description}</p> : null}
      </div>
      {props.actions ? <div className="row">{props.actions}</div> : null}
    </div>
  );
}

export function Field(props: {
  label: ReactNode;
  hint?: ReactNode;
  error?: string | null;
  children: ReactNode;
}) {
  return (
    // biome-ignore lint/a11y/noLabelWithoutControl: the control is passed in as children
    <label className="field">
      <span>{props.label}</span>
      {props.children}
      {props.error ? <span className="field-error">{props.error}</span> : null}
      {props.hint && !props.error ? <span className="hint">{props.hint}</span> : null}
    </label>
  );
}

export function Toggle(props: {
  label: ReactNode;
  description?: ReactNode;
  checked: boolean;
  onChange: (checked: boolean) => void;
  name?: string;
  disabled?: boolean;
}) {
  return (
    <div className="switch-row">
      <div>
        <strong>{props.label}</strong>
        {props.description ? <p>{props.description}</p> : null}
      </div>
      <input
        type="checkbox"
        role="switch"
        aria-checked={props.checked}
        className="switch"
        name={props.name}
        aria-label={typeof props.label === "string" ? props.label : props.name}
        checked={props.checked}
        disabled={props.disabled}
        onChange={(event) => props.onChange(event.target.checked)}
      />
    </div>
  );
}

/**
 * A table that scrolls sideways inside its card when the screen is narrower than its columns (a phone), instead
 * of widening the page. `testId` stays on the table itself.
 */
export function Table({
  testId,
  columns,
  children,
}: {
  testId?: string;
  /**
   * The header texts, "" for the one column without a header (the row's actions); with them the children are the
   * rows. Without them the children are the table's own thead and tbody (sortable headers).
   */
  columns?: readonly string[];
  children: ReactNode;
}) {
  return (
    <div className="table-scroll">
      <table className="table" data-testid={testId}>
        {columns ? (
          <>
            <thead>
              <tr>
                {columns.map((column) => (
                  <th key={column}>{column}</th>
                ))}
              </tr>
            </thead>
            <tbody>{children}</tbody>
          </>
        ) : (
          children
        )}
      </table>
    </div>
  );
}

/**
 * A sortable column's header: a button inside the <th>, which carries `aria-sort` ("ascending", "descending" or
 * "none"), so keyboards reach it and screen readers say how the table is ordered.
 */
export function SortHeader(props: {
  children: ReactNode;
  /** How the table is sorted by this column now; null when it is sorted by another one. */
  direction: "ascending" | "descending" | null;
  onSort: () => void;
  testId?: string;
  className?: string;
}) {
  const arrow = props.direction === "ascending" ? "↑" : props.direction === "descending" ? "↓" : "↕";
  return (
    <th aria-sort={props.direction ?? "none"} className={props.className}>
      <button type="button" className="th-sort" onClick={props.onSort} data-testid={props.testId}>
        {props.children}{" "}
        <span aria-hidden="true" className={props.direction ? undefined : "muted"}>
          {arrow}
        </span>
      </button>
    </th>
  );
}

/**
 * For a table row that opens a page: the row's main cell holds a real link (`<Link>`, so Tab, Enter, middle-click
 * and "open in new tab" work), and a click anywhere else on the row follows it too. Clicks on the row's own
 * controls (links, buttons, fields) are theirs.
 */
export function rowClick(to: string) {
  return (event: MouseEvent<HTMLElement>) => {
    if ((event.target as Element).closest("a, button, input, select, textarea, label")) return;
    if (window.getSelection()?.toString()) return; // selecting text to copy is not a click
    if (event.metaKey || event.ctrlKey) {
      window.open(to, "_blank", "noopener");
      return;
    }
    navigate(to);
  };
}

export function Badge(props: { tone?: "accent" | "success" | "danger" | "warning"; children: ReactNode }) {
  return <span className={`badge ${props.tone ?? ""}`}>{props.children}</span>;
}

export function Empty(props: { icon?: ReactNode; title: string; children?: ReactNode; action?: ReactNode }) {
  return (
    <div className="empty">
      <div className="empty-icon">{props.icon ?? "∅"}</div>
      <h2>{props.title}</h2>
      {props.children ? <p>{props.children}</p> : null}
      {props.action}
    </div>
  );
}

export function Loading({ rows = 4 }: { rows?: number }) {
  return (
    <div className="loading-block" aria-busy="true" data-testid="loading">
      {Array.from({ length: rows }, (_, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: placeholders have no identity
        <div key={i} className="skeleton" style={{ width: `${90 - i * 12}%` }} />
      ))}
    </div>
  );
}

export function ErrorAlert({ error, retry }: { error: unknown; retry?: () => void }) {
  return (
    <div className="alert danger" role="alert">
      <div style={{ flex: 1 }}>{errorMessage(error)}</div>
      {retry ? (
        <Button variant="secondary" small onClick={retry}>
          Retry
        </Button>
      ) : null}
    </div>
  );
}

/** A form's failure (or its own check) below the fields; nothing when there is none. */
export function FormError({ error }: { error: string | null }) {
  return error ? (
    <div className="alert danger" role="alert">
      {error}
    </div>
  ) : null;
}

export function CopyField({ value, label }: { value: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <div className="copy-field" data-testid={label ? `copy-${label}` : undefined}>
      {/* Focusable, so a value wider than the field can be scrolled with the keyboard. */}
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard */}
      <code tabIndex={0}>{value}</code>
      <Button
        variant="secondary"
        small
        aria-label={`Copy ${label ?? "value"}`}
        onClick={async () => {
          try {
            await navigator.clipboard.writeText(value);
          } catch {
            // Clipboard access can be refused (insecure origin); the value stays selectable on screen.
          }
          setCopied(true);
          setTimeout(() => setCopied(false), 1500);
        }}
      >
        {copied ? "Copied" : "Copy"}
      </Button>
    </div>
  );
}
