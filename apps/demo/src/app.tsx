import {
  GatehouseHandler,
  GatehouseProvider,
  type GatehouseTheme,
  navigate,
  SelectedTeamSwitcher,
  UserButton,
  useLocation,
  useUser,
} from "@gatehouse/react";
import { type MouseEvent, type ReactNode, Suspense } from "react";
import { gatehouse } from "./gatehouse.ts";
import { HomePage } from "./pages/home.tsx";
import { ProtectedPage } from "./pages/protected.tsx";
import { useTheme } from "./theme.ts";

function Link({ href, children, className }: { href: string; children: ReactNode; className?: string }) {
  const onClick = (event: MouseEvent<HTMLAnchorElement>) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(href);
  };
  return (
    <a href={href} onClick={onClick} className={className}>
      {children}
    </a>
  );
}

const THEMES: { value: GatehouseTheme; label: string }[] = [
  { value: "system", label: "System" },
  { value: "light", label: "Light" },
  { value: "dark", label: "Dark" },
];

function TeamSwitcherIfSignedIn() {
  const user = useUser();
  return user ? <SelectedTeamSwitcher /> : null;
}

function Header({
  theme,
  setTheme,
  path,
}: {
  theme: GatehouseTheme;
  setTheme: (t: GatehouseTheme) => void;
  path: string;
}) {
  return (
    <header className="demo-header">
      <div className="demo-header-inner">
        <Link href="/" className="demo-logo">
          <span className="demo-logo-mark" aria-hidden="true">
            <svg viewBox="6 5 20 22" aria-hidden="true" focusable="false">
              <path d="M9 24V13l7-5 7 5v11h-5v-6h-4v6z" fill="currentColor" />
            </svg>
          </span>
          Acme Notes
        </Link>
        <nav className="demo-nav" aria-label="Main">
          <Link href="/" className={path === "/" ? "active" : ""}>
            Home
          </Link>
          <Link href="/protected" className={path === "/protected" ? "active" : ""}>
            Protected page
          </Link>
        </nav>
        <div className="demo-header-end">
          <Suspense fallback={null}>
            <TeamSwitcherIfSignedIn />
          </Suspense>
          <label className="demo-theme">
            <span className="demo-visually-hidden">Theme</span>
            <select value={theme} onChange={(event) => setTheme(event.target.value as GatehouseTheme)}>
              {THEMES.map((choice) => (
                <option key={choice.value} value={choice.value}>
                  {choice.label}
                </option>
              ))}
            </select>
          </label>
          <UserButton />
        </div>
      </div>
    </header>
  );
}

function Routes({ path }: { path: string }) {
  if (path === "/handler" || path.startsWith("/handler/")) return <GatehouseHandler basePath="/handler" />;
  if (path === "/protected") return <ProtectedPage />;
  if (path === "/") return <HomePage />;
  return (
    <main className="demo-main">
      <h1>Page not found</h1>
      <p>
        <Link href="/">Back to the home page</Link>
      </p>
    </main>
  );
}

export function App() {
  const [theme, setTheme] = useTheme();
  const location = useLocation();
  return (
    <GatehouseProvider app={gatehouse} theme={theme}>
      <div className="demo-shell">
        <Header theme={theme} setTheme={setTheme} path={location.pathname} />
        <Suspense fallback={<div className="demo-loading">Loading…</div>}>
          <Routes path={location.pathname} />
        </Suspense>
      </div>
    </GatehouseProvider>
  );
}
