import { type MouseEvent, type ReactNode, useEffect, useSyncExternalStore } from "react";

// A small history router: the dashboard has a handful of flat routes, and react-router needs a newer Node.
const listeners = new Set<() => void>();
const notify = () => {
  for (const listener of listeners) listener();
};
if (typeof window !== "undefined") {
  window.addEventListener("popstate", notify);
  // @gatehouse/react moves between its handler pages with pushState and announces it with this event; the
  // dashboard has to follow when such a move leaves the handler (e.g. "go home" on the already-signed-in card).
  window.addEventListener("gatehouse:locationchange", notify);
}

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (options.replace) window.history.replaceState(null, "", to);
  else window.history.pushState(null, "", to);
  notify();
  document.querySelector(".content")?.scrollTo(0, 0);
}

function subscribe(listener: () => void) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function useLocation(): { pathname: string; search: URLSearchParams } {
  const href = useSyncExternalStore(subscribe, () => window.location.pathname + window.location.search);
  const url = new URL(href, "http://x");
  return { pathname: url.pathname, search: url.searchParams };
}

/** Matches `/projects/:projectId/users` style patterns; returns the parameters or null. */
export function matchPath(pattern: string, pathname: string): Record<string, string> | null {
  const want = pattern.split("/").filter(Boolean);
  const have = pathname.split("/").filter(Boolean);
  if (want.length !== have.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const w = want[i]!;
    const h = decodeURIComponent(have[i]!);
    if (w.startsWith(":")) params[w.slice(1)] = h;
    else if (w !== h) return null;
  }
  return params;
}

export function Link(props: { to: string; className?: string; children: ReactNode; title?: string }) {
  const onClick = (event: MouseEvent) => {
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
    event.preventDefault();
    navigate(props.to);
  };
  return (
    <a href={props.to} className={props.className} onClick={onClick} title={props.title}>
      {props.children}
    </a>
  );
}

export function Redirect({ to }: { to: string }) {
  useEffect(() => navigate(to, { replace: true }), [to]);
  return null;
}
