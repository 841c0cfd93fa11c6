import { type KeyboardEvent, type ReactNode, useEffect, useId, useRef, useState } from "react";

/**
 * A menu button (WAI-ARIA menu pattern): opens on click, Enter, Space or the arrow keys; arrows and Home/End move
 * between items; Escape closes it and gives focus back to the button; a click outside closes it.
 */
export function Menu({
  label,
  trigger,
  triggerClassName,
  align = "right",
  children,
}: {
  label: string;
  trigger: ReactNode;
  triggerClassName?: string;
  align?: "left" | "right";
  children: (close: () => void) => ReactNode;
}) {
  const [open, setOpen] = useState(false);
  const anchor = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const menu = useRef<HTMLDivElement>(null);
  const menuId = useId();

  const items = () => [...(menu.current?.querySelectorAll<HTMLElement>('[role^="menuitem"]') ?? [])];
  const close = (refocus = true) => {
    setOpen(false);
    if (refocus) button.current?.focus();
  };

  // Runs when the menu opens or closes only; `items` reads the live DOM each time it is called.
  // biome-ignore lint/correctness/useExhaustiveDependencies: see above
  useEffect(() => {
    if (!open) return;
    items()[0]?.focus();
    const onPointer = (event: PointerEvent) => {
      if (!anchor.current?.contains(event.target as Node)) setOpen(false);
    };
    document.addEventListener("pointerdown", onPointer);
    return () => document.removeEventListener("pointerdown", onPointer);
  }, [open]);

  const onMenuKey = (event: KeyboardEvent) => {
    const all = items();
    const index = all.indexOf(document.activeElement as HTMLElement);
    const move = (to: number) => {
      event.preventDefault();
      all[(to + all.length) % all.length]?.focus();
    };
    if (event.key === "ArrowDown") move(index + 1);
    else if (event.key === "ArrowUp") move(index - 1);
    else if (event.key === "Home") move(0);
    else if (event.key === "End") move(all.length - 1);
    else if (event.key === "Escape") {
      event.preventDefault();
      close();
    } else if (event.key === "Tab") close(false);
  };

  return (
    <div className="gh-menu-anchor" ref={anchor}>
      <button
        ref={button}
        type="button"
        className={triggerClassName ?? "gh-menu-trigger"}
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? menuId : undefined}
        onClick={() => setOpen((value) => !value)}
        onKeyDown={(event) => {
          if (event.key === "ArrowDown" || event.key === "ArrowUp") {
            event.preventDefault();
            setOpen(true);
          }
        }}
      >
        {/* The name is this label plus the trigger's visible text (never an aria-label that leaves the visible
            text out, which speech input users could not say). */}
        <span className="gh-sr-only">{label}</span>
        {trigger}
      </button>
      {open ? (
        <div
          ref={menu}
          id={menuId}
          role="menu"
          aria-label={label}
          className={align === "left" ? "gh-menu gh-menu-left" : "gh-menu"}
          onKeyDown={onMenuKey}
          tabIndex={-1}
        >
          {children(() => close())}
        </div>
      ) : null}
    </div>
  );
}

export function MenuItem({
  children,
  onSelect,
  checked,
}: {
  children: ReactNode;
  onSelect: () => void;
  checked?: boolean;
}) {
  if (checked === undefined) {
    return (
      <button type="button" role="menuitem" className="gh-menu-item" tabIndex={-1} onClick={onSelect}>
        {children}
      </button>
    );
  }
  return (
    <button
      type="button"
      role="menuitemradio"
      aria-checked={checked}
      className="gh-menu-item"
      tabIndex={-1}
      onClick={onSelect}
    >
      {children}
    </button>
  );
}
