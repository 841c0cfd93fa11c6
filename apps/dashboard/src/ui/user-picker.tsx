import type { ServerUser } from "@gatehouse/js";
import { useEffect, useState } from "react";
import { useProjectContext } from "../project-context.tsx";
import { Avatar } from "./components.tsx";

/** How long typing must pause before the picker asks the server: one query per pause, not per key. */
const SEARCH_DELAY_MS = 200;
const SUGGESTIONS = 6;

/**
 * Finds a user of the project by name, email or id, as owners know them, instead of asking for a raw user id.
 * Calls `onPick` with the chosen user and clears itself.
 */
export function UserPicker(props: {
  name: string;
  placeholder?: string;
  exclude?: ReadonlySet<string>;
  onPick: (user: ServerUser) => void;
}) {
  const { app } = useProjectContext();
  const [text, setText] = useState("");
  const [found, setFound] = useState<ServerUser[] | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    const query = text.trim();
    if (!query) {
      setFound(null);
      return;
    }
    let current = true;
    const timer = setTimeout(() => {
      app
        .listUsers({ query, limit: SUGGESTIONS + (props.exclude?.size ?? 0), includeRestricted: true })
        .then((page) => {
          if (!current) return;
          setFound(page.filter((user) => !props.exclude?.has(user.id)).slice(0, SUGGESTIONS));
          setError(null);
        })
        .catch((caught: unknown) => {
          if (current) setError(caught instanceof Error ? caught.message : String(caught));
        });
    }, SEARCH_DELAY_MS);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [app, text, props.exclude]);

  return (
    <div className="picker">
      <input
        type="search"
        name={props.name}
        autoComplete="off"
        placeholder={props.placeholder ?? "Find a user by name, email or id"}
        value={text}
        onChange={(event) => setText(event.target.value)}
      />
      {text.trim() && (found || error) ? (
        <div className="picker-list" role="listbox" aria-label="Matching users">
          {error ? <div className="picker-empty danger-text">{error}</div> : null}
          {found?.length === 0 ? (
            <div className="picker-empty muted">No user matches “{text.trim()}”.</div>
          ) : null}
          {found?.map((user) => (
            <button
              type="button"
              role="option"
              aria-selected="false"
              key={user.id}
              className="menu-item"
              onClick={() => {
                setText("");
                setFound(null);
                props.onPick(user);
              }}
            >
              <Avatar
                name={user.displayName ?? user.primaryEmail}
                seed={user.id}
                image={user.profileImageUrl}
              />
              <span>
                <div>{user.displayName ?? user.primaryEmail ?? "Anonymous user"}</div>
                <div className="muted small">{user.primaryEmail ?? user.id}</div>
              </span>
            </button>
          ))}
        </div>
      ) : null}
    </div>
  );
}
