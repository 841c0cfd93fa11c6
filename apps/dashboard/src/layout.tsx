import { UserButton } from "@gatehouse/react";
import { avatarColor, buttonClass } from "@gatehouse/react/ui";
import { type ReactNode, useCallback, useEffect, useRef, useState } from "react";
import { AiHelperButton } from "./features/ai/ai-panel.tsx";
import { projectPath, useProjectContext } from "./project-context.tsx";
import { Link, navigate, useLocation } from "./router.tsx";
import { BrandMark, Icon, type IconName } from "./ui/icons.tsx";
import { ThemeToggle } from "./ui/theme.tsx";

type NavItem = { label: string; icon: IconName; path?: string; soon?: boolean };

/** The sections; the later ones are placeholders so the navigation does not move when they arrive. */
const NAV: { section: string; items: NavItem[] }[] = [
  {
    section: "Project",
    items: [
      { label: "Overview", icon: "home", path: "" },
      { label: "Metrics", icon: "chart", path: "metrics" },
      { label: "Payments", icon: "card", path: "payments" },
    ],
  },
  {
    section: "Users",
    items: [
      { label: "Users", icon: "users", path: "users" },
      { label: "Teams", icon: "teams", path: "teams" },
      { label: "Permissions", icon: "shield", path: "permissions" },
    ],
  },
  {
    section: "Configuration",
    items: [
      { label: "Auth methods", icon: "lock", path: "auth-methods" },
      { label: "Sign-up rules", icon: "shield", path: "sign-up-rules" },
      { label: "Domains", icon: "globe", path: "domains" },
      { label: "API keys", icon: "key", path: "keys" },
      { label: "Email", icon: "mail", path: "email" },
      { label: "Sent emails", icon: "mail", path: "sent-emails" },
      { label: "Email templates", icon: "template", path: "email-templates" },
      { label: "Webhooks", icon: "hook", path: "webhooks" },
      { label: "Project settings", icon: "settings", path: "settings" },
    ],
  },
];

function useClickOutside(onOutside: () => void) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const handler = (event: MouseEvent) => {
      if (ref.current && !ref.current.contains(event.target as Node)) onOutside();
    };
    document.addEventListener("mousedown", handler);
    return () => document.removeEventListener("mousedown", handler);
  }, [onOutside]);
  return ref;
}

function ProjectSwitcher() {
  const { project, projects } = useProjectContext();
  const [open, setOpen] = useState(false);
  const ref = useClickOutside(() => setOpen(false));
  return (
    <div className="menu-wrap" ref={ref}>
      <button
        type="button"
        className={buttonClass({ variant: "ghost" })}
        data-testid="project-switcher"
        onClick={() => setOpen(!open)}
        style={{ gap: 10 }}
      >
        <span className="project-dot" style={{ background: avatarColor(project.id) }}>
          {project.displayName.slice(0, 1).toUpperCase()}
        </span>
        <strong>{project.displayName}</strong>
        <Icon name="chevron" />
      </button>
      {open ? (
        <div className="menu" role="menu">
          <div className="nav-section" style={{ margin: "6px 10px" }}>
            Your projects
          </div>
          {projects.map((item) => (
            <button
              type="button"
              key={item.id}
              role="menuitem"
              className="menu-item"
              onClick={() => {
                setOpen(false);
                navigate(projectPath(item.id));
              }}
            >
              <span className="project-dot" style={{ background: avatarColor(item.id) }}>
                {item.displayName.slice(0, 1).toUpperCase()}
              </span>
              <span style={{ flex: 1 }}>{item.displayName}</span>
              {item.id === project.id ? <Icon name="check" /> : null}
            </button>
          ))}
          <div className="menu-sep" />
          <button
            type="button"
            role="menuitem"
            className="menu-item"
            onClick={() => {
              setOpen(false);
              navigate("/new-project");
            }}
          >
            <Icon name="plus" /> Create project
          </button>
        </div>
      ) : null}
    </div>
  );
}

/**
 * On a phone the sidebar is a drawer behind a menu button (styles.css decides by width): open, it takes the focus
 * to its first link; Escape, the backdrop or the button close it and give the focus back to the button; following
 * a link closes it and puts the focus on the page it opened.
 */
function useDrawer(pathname: string) {
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const drawer = useRef<HTMLElement>(null);
  const main = useRef<HTMLElement>(null);
  const close = useCallback(() => {
    setOpen(false);
    button.current?.focus();
  }, []);
  useEffect(() => {
    if (!open) return;
    drawer.current?.querySelector<HTMLElement>("a[href]")?.focus();
    const onKey = (event: KeyboardEvent) => {
      if (event.key === "Escape") close();
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [open, close]);
  // A link followed from the drawer: the page changed under it.
  const openNow = useRef(open);
  openNow.current = open;
  const shown = useRef(pathname);
  useEffect(() => {
    if (shown.current === pathname) return;
    shown.current = pathname;
    if (!openNow.current) return;
    setOpen(false);
    main.current?.focus({ preventScroll: true });
  }, [pathname]);
  return { open, toggle: () => (open ? close() : setOpen(true)), close, button, drawer, main };
}

export function Shell({ children }: { children: ReactNode }) {
  const { project } = useProjectContext();
  const { pathname } = useLocation();
  const base = projectPath(project.id);
  const rest = pathname.startsWith(base) ? pathname.slice(base.length).replace(/^\//, "") : "";
  const current = rest.split("/")[0] ?? "";
  const drawer = useDrawer(pathname);
  return (
    <div className={`shell${drawer.open ? " drawer-open" : ""}`}>
      <aside className="sidebar" id="sidebar" ref={drawer.drawer} data-testid="sidebar">
        <div className="sidebar-inner">
          <div className="brand">
            <BrandMark /> Gatehouse
          </div>
          <nav className="nav" aria-label="Project">
            {NAV.map((group) => (
              <div key={group.section}>
                <div className="nav-section">{group.section}</div>
                {group.items.map((item) =>
                  item.soon || item.path === undefined ? (
                    <span key={item.label} className="nav-item disabled" aria-disabled="true">
                      <Icon name={item.icon} /> {item.label} <span className="soon">Soon</span>
                    </span>
                  ) : (
                    <Link
                      key={item.label}
                      to={projectPath(project.id, item.path)}
                      className={`nav-item${current === item.path ? " active" : ""}`}
                    >
                      <Icon name={item.icon} /> {item.label}
                    </Link>
                  ),
                )}
              </div>
            ))}
          </nav>
          <div className="sidebar-foot">
            <a
              className={buttonClass({ variant: "ghost", small: true })}
              href="/api/v1/docs"
              target="_blank"
              rel="noreferrer"
            >
              API reference
            </a>
            <span style={{ flex: 1 }} />
            <ThemeToggle />
          </div>
        </div>
      </aside>
      {drawer.open ? (
        // biome-ignore lint/a11y/noStaticElementInteractions: a pointer shortcut; Escape and the button close it too
        // biome-ignore lint/a11y/useKeyWithClickEvents: see above
        <div className="drawer-backdrop" onClick={drawer.close} />
      ) : null}
      <div className="main">
        <header className="topbar">
          <button
            type="button"
            ref={drawer.button}
            className={buttonClass({ variant: "ghost", className: "menu-button" })}
            aria-expanded={drawer.open}
            aria-controls="sidebar"
            aria-label="Menu"
            data-testid="menu-button"
            onClick={drawer.toggle}
          >
            <Icon name={drawer.open ? "x" : "menu"} size={18} />
          </button>
          <ProjectSwitcher />
          <span className="spacer" />
          <AiHelperButton />
          <UserButton />
        </header>
        <main className="content" ref={drawer.main} tabIndex={-1}>
          <div className="page">{children}</div>
        </main>
      </div>
    </div>
  );
}
