import { Button } from "@gatehouse/react/ui";
import { type ReactNode, useEffect, useId, useRef, useState } from "react";
import { TextField } from "./fields.tsx";
import { useToast } from "./toast.tsx";

const FOCUSABLE =
  'a[href], button:not([disabled]), input:not([disabled]):not([type="hidden"]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"]), [contenteditable="true"]';

/** The elements of `root` that Tab reaches, in order (hidden ones left out). */
export function focusableIn(root: HTMLElement): HTMLElement[] {
  return Array.from(root.querySelectorAll<HTMLElement>(FOCUSABLE)).filter(
    (element) => element.tabIndex >= 0 && element.getClientRects().length > 0,
  );
}

/**
 * A dialog: on open the focus moves into it (its first field, else its first button), Tab and Shift+Tab stay
 * inside, Escape closes it wherever the focus is, and on close the focus goes back to what had it before (the
 * button that opened it). Only the topmost of stacked dialogs answers the keyboard.
 */
export function Modal(props: {
  title: ReactNode;
  description?: ReactNode;
  onClose: () => void;
  children?: ReactNode;
  footer?: ReactNode;
  wide?: boolean;
}) {
  const dialog = useRef<HTMLDivElement>(null);
  const titleId = useId();
  const onClose = useRef(props.onClose);
  onClose.current = props.onClose;
  useEffect(() => {
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const root = dialog.current;
    if (!root) return;
    const first =
      root.querySelector<HTMLElement>("[autofocus]") ??
      focusableIn(root).find((element) => element.matches("input, select, textarea")) ??
      focusableIn(root)[0] ??
      root;
    first.focus();
    const isTopmost = () => {
      const all = document.querySelectorAll('[role="dialog"][aria-modal="true"]');
      return all[all.length - 1] === root;
    };
    const onKey = (event: KeyboardEvent) => {
      if (!isTopmost() || event.defaultPrevented) return;
      if (event.key === "Escape") {
        event.preventDefault();
        onClose.current();
        return;
      }
      if (event.key !== "Tab") return;
      const items = focusableIn(root);
      if (items.length === 0) {
        event.preventDefault();
        root.focus();
        return;
      }
      const firstItem = items[0]!;
      const lastItem = items[items.length - 1]!;
      const active = document.activeElement;
      if (!root.contains(active)) {
        event.preventDefault();
        firstItem.focus();
      } else if (event.shiftKey && (active === firstItem || active === root)) {
        event.preventDefault();
        lastItem.focus();
      } else if (!event.shiftKey && active === lastItem) {
        event.preventDefault();
        firstItem.focus();
      }
    };
    document.addEventListener("keydown", onKey);
    return () => {
      document.removeEventListener("keydown", onKey);
      // Back to the opener, unless the close moved the focus somewhere on purpose (a new page, another dialog).
      const active = document.activeElement;
      if (opener?.isConnected && (!active || active === document.body || root.contains(active)))
        opener.focus();
    };
  }, []);
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: clicking the backdrop closes, Escape is handled on the document
    // biome-ignore lint/a11y/useKeyWithClickEvents: see above
    <div
      className="modal-backdrop"
      onClick={(event) => {
        if (event.target === event.currentTarget) props.onClose();
      }}
    >
      <div
        ref={dialog}
        className={`modal${props.wide ? " wide" : ""}`}
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        tabIndex={-1}
      >
        <div className="modal-head">
          <h2 id={titleId}>{props.title}</h2>
          {props.description ? <p>{props.description}</p> : null}
        </div>
        {props.children ? <div className="modal-body">{props.children}</div> : null}
        {props.footer ? <div className="modal-foot">{props.footer}</div> : null}
      </div>
    </div>
  );
}

/**
 * A destructive action behind a confirmation dialog; `typeToConfirm` asks for the name to be typed. The dialog's
 * confirm button says `label` again unless `confirmLabel` words it otherwise.
 */
export function ConfirmButton(props: {
  label: ReactNode;
  title: string;
  description: ReactNode;
  confirmLabel?: string;
  onConfirm: () => Promise<unknown>;
  success?: string;
  typeToConfirm?: string;
  small?: boolean;
  variant?: "danger" | "primary";
}) {
  const [open, setOpen] = useState(false);
  const [typed, setTyped] = useState("");
  const [busy, setBusy] = useState(false);
  const toast = useToast();
  const danger = (props.variant ?? "danger") === "danger";
  return (
    <>
      <Button
        variant={danger ? "danger-outline" : "secondary"}
        small={props.small}
        onClick={() => setOpen(true)}
      >
        {props.label}
      </Button>
      {open ? (
        <Modal
          title={props.title}
          description={props.description}
          onClose={() => !busy && setOpen(false)}
          footer={
            <>
              <Button variant="secondary" onClick={() => setOpen(false)} disabled={busy}>
                Cancel
              </Button>
              <Button
                variant={danger ? "danger" : "primary"}
                loading={busy}
                disabled={props.typeToConfirm !== undefined && typed !== props.typeToConfirm}
                onClick={async () => {
                  setBusy(true);
                  try {
                    await props.onConfirm();
                    if (props.success) toast.success(props.success);
                    setOpen(false);
                  } catch (error) {
                    toast.error(error);
                  } finally {
                    setBusy(false);
                  }
                }}
              >
                {props.confirmLabel ?? props.label}
              </Button>
            </>
          }
        >
          {props.typeToConfirm !== undefined ? (
            <TextField
              label={`Type "${props.typeToConfirm}" to confirm`}
              name="confirm"
              value={typed}
              onChange={setTyped}
            />
          ) : null}
        </Modal>
      ) : null}
    </>
  );
}

/**
 * The last cell of a table row: one confirmed action on the row's thing (Remove, Revoke: the button and the
 * dialog's confirm say the same verb), then the list is read again.
 */
export function ConfirmCell(props: {
  verb: string;
  title: string;
  description: ReactNode;
  success: string;
  run: () => Promise<unknown>;
  reload: () => Promise<unknown>;
}) {
  return (
    <td style={{ textAlign: "right" }}>
      <ConfirmButton
        small
        label={props.verb}
        title={props.title}
        description={props.description}
        success={props.success}
        onConfirm={async () => {
          await props.run();
          await props.reload();
        }}
      />
    </td>
  );
}
