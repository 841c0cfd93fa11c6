import type { ServerUser } from "@gatehouse/js";
import { Avatar, avatarColor } from "@gatehouse/react/ui";
import { type KeyboardEvent, useEffect, useId, useState } from "react";
import { useProjectContext } from "../project-context.tsx";
import { errorMessage } from "./hooks.ts";

/** How long typing must pause before the picker asks the server: one query per pause, not per key. */
const SEARCH_DELAY_MS = 200;
const SUGGESTIONS = 6;

/**
 * Finds a user of the project by name, email or id, as owners know them, instead of asking for a raw user id.
 * Calls `onPick` with the chosen user and clears itself.
 *
 * A combobox (ARIA 1.2's editable combobox with a list popup): the field keeps the focus, Down and Up move
 * through the matches (`aria-activedescendant`), Enter picks the active one, Escape closes the list.
 */
export function UserPicker(props: {
  name: string;
  placeholder?: string;
  /** What a screen reader calls the field; the placeholder by default. */
  label?: string;
  exclude?: ReadonlySet<string>;
  onPick: (user: ServerUser) => void;
}) {
  const { app } = useProjectContext();
  const [text, setText] = useState("");
  const [found, setFound] = useState<ServerUser[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [active, setActive] = useState(-1);
  const [dismissed, setDismissed] = useState(false);
  const baseId = useId();
  const listId = `${baseId}-list`;
  const optionId = (index: number) => `${baseId}-option-${index}`;
  const placeholder = props.placeholder ?? "Find a user by name, email or id";

  useEffect(() => {
    const query = text.trim();
    if (!query) {
      setFound(null);
      setError(null);
      return;
    }
    let current = true;
    const timer = setTimeout(() => {
      app
        .listUsers({ query, limit: SUGGESTIONS + (props.exclude?.size ?? 0), includeRestricted: true })
        .then((page) => {
          if (!current) return;
          setFound(page.filter((user) => !props.exclude?.has(user.id)).slice(0, SUGGESTIONS));
          setActive(-1);
          setError(null);
        })
        .catch((caught: unknown) => {
          if (current) setError(errorMessage(caught));
        });
    }, SEARCH_DELAY_MS);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [app, text, props.exclude]);

  const options = found ?? [];
  const open = !dismissed && text.trim() !== "" && options.length > 0;
  const message = dismissed || !text.trim() ? null : error ? error : found?.length === 0 ? "none" : null;

  const pick = (user: ServerUser) => {
    setText("");
    setFound(null);
    setActive(-1);
    props.onPick(user);
  };

  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      if (options.length === 0) return;
      event.preventDefault();
      setDismissed(false);
      const last = options.length - 1;
      setActive((index) =>
        event.key === "ArrowDown" ? (index >= last ? 0 : index + 1) : index <= 0 ? last : index - 1,
      );
      return;
    }
    if (event.key === "Enter") {
      // Enter in the field never submits the surrounding form: it picks, or does nothing.
      event.preventDefault();
      const user = open ? options[Math.max(active, 0)] : undefined;
      if (user) pick(user);
      return;
    }
    if (event.key === "Escape" && (open || message)) {
      // Closes the list only; a dialog around the picker stays open (it checks defaultPrevented).
      event.preventDefault();
      setDismissed(true);
      setActive(-1);
    }
  };

  return (
    <div className="picker">
      <input
        type="text"
        role="combobox"
        name={props.name}
        autoComplete="off"
        aria-label={props.label ?? placeholder}
        aria-autocomplete="list"
        aria-expanded={open}
        aria-controls={listId}
        aria-activedescendant={open && active >= 0 ? optionId(active) : undefined}
        placeholder={placeholder}
        value={text}
        onChange={(event) => {
          setText(event.target.value);
          setDismissed(false);
        }}
        onKeyDown={onKeyDown}
        onBlur={() => setActive(-1)}
      />
      <div className="picker-list" id={listId} role="listbox" aria-label="Matching users" hidden={!open}>
        {open
          ? options.map((user, index) => (
              // biome-ignore lint/a11y/useKeyWithClickEvents: the keyboard works in the field (aria-activedescendant)
              // biome-ignore lint/a11y/useFocusableInteractive: a combobox's options are never focused themselves
              <div
                key={user.id}
                id={optionId(index)}
                role="option"
                aria-selected={index === active}
                className={`menu-item${index === active ? " active" : ""}`}
                // Keeps the focus in the field, so the list does not close under the pointer.
                onMouseDown={(event) => event.preventDefault()}
                onClick={() => pick(user)}
              >
                <Avatar
                  name={user.displayName ?? user.primaryEmail}
                  color={avatarColor(user.id)}
                  imageUrl={user.profileImageUrl}
                />
                <span>
                  <div>{user.displayName ?? user.primaryEmail ?? "Anonymous user"}</div>
                  <div className="muted small">{user.primaryEmail ?? user.id}</div>
                </span>
              </div>
            ))
          : null}
      </div>
      {message ? (
        <div className="picker-list" role="status">
          {message === "none" ? (
            <div className="picker-empty muted">No user matches “{text.trim()}”.</div>
          ) : (
            <div className="picker-empty danger-text">{message}</div>
          )}
        </div>
      ) : null}
    </div>
  );
}
