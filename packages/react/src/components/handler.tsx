import type { HANDLER_PAGES } from "@gatehouse/js";
import { type ReactNode, useEffect, useSyncExternalStore } from "react";
import { useStrings } from "../context.ts";
import { useGatehouseApp } from "../hooks.ts";
import { projectWatchable } from "../internal/caches.ts";
import { useLocation } from "../internal/router.ts";
import type { GatehouseStrings } from "../strings.ts";
import { AccountSettings } from "./account/account-settings.tsx";
import { EmailVerification, MagicLinkCallback, OAuthCallback } from "./callback-pages.tsx";
import { CliAuthConfirm } from "./cli-auth-confirm.tsx";
import { ErrorPage } from "./error-page.tsx";
import { Impersonate } from "./impersonate.tsx";
import { MfaCodeEntry } from "./mfa.tsx";
import { ForgotPassword, PasswordReset } from "./password-pages.tsx";
import { SignIn } from "./sign-in.tsx";
import { SignOut } from "./sign-out.tsx";
import { SignUp } from "./sign-up.tsx";
import { TeamInvitation } from "./teams/team-invitation.tsx";

type Slug = (typeof HANDLER_PAGES)[keyof typeof HANDLER_PAGES];

const PAGES: Record<Slug, () => ReactNode> = {
  "sign-in": () => <SignIn />,
  "sign-up": () => <SignUp />,
  "sign-out": () => <SignOut />,
  "email-verification": () => <EmailVerification />,
  "password-reset": () => <PasswordReset />,
  "forgot-password": () => <ForgotPassword />,
  "oauth-callback": () => <OAuthCallback />,
  "magic-link-callback": () => <MagicLinkCallback />,
  "account-settings": () => <AccountSettings />,
  error: () => <ErrorPage />,
  "team-invitation": () => <TeamInvitation />,
  mfa: () => <MfaCodeEntry />,
  "cli-auth-confirm": () => <CliAuthConfirm />,
  impersonate: () => <Impersonate />,
};

/** Each page's name for `document.title`: its heading's words where they name the page. */
const TITLES: Record<Slug, (s: GatehouseStrings) => string> = {
  "sign-in": (s) => s.signInTitle,
  "sign-up": (s) => s.signUpTitle,
  "sign-out": (s) => s.signOut,
  "email-verification": (s) => s.emailVerificationTitle,
  "password-reset": (s) => s.passwordResetTitle,
  "forgot-password": (s) => s.forgotPasswordTitle,
  "oauth-callback": (s) => s.signInTitle,
  "magic-link-callback": (s) => s.magicLinkTitle,
  "account-settings": (s) => s.accountSettingsTitle,
  error: (s) => s.errorTitle,
  "team-invitation": (s) => s.teamInvitationTitle,
  mfa: (s) => s.mfaTitle,
  "cli-auth-confirm": (s) => s.cliTitle,
  impersonate: (s) => s.impersonateTitle,
};

/** The page of the handler a path names, or null when it names none. */
export function handlerPageFor(pathname: string, basePath: string): Slug | null {
  const base = basePath.replace(/\/+$/, "");
  if (pathname !== base && !pathname.startsWith(`${base}/`)) return null;
  const slug = pathname.slice(base.length).replace(/^\/+|\/+$/g, "") || "sign-in";
  return Object.hasOwn(PAGES, slug) ? (slug as Slug) : null;
}

function NotFound() {
  const s = useStrings();
  return <ErrorPage message={s.errorNotFound} />;
}

/**
 * The project's name once it is known, without suspending: the title must not hold the page back, and a failed
 * read is the page's to show, not the title's.
 */
function useProjectNameIfKnown(): string | null {
  const watchable = projectWatchable(useGatehouseApp());
  const snapshot = useSyncExternalStore(watchable.subscribe, watchable.getSnapshot, watchable.getSnapshot);
  return snapshot.status === "ok" ? snapshot.data.displayName : null;
}

/**
 * Puts `title` in `document.title` while it is shown, and the title it replaced back when it goes, unless the app
 * has set a title of its own meanwhile: tabs, history and screen readers tell the pages apart, and the app's own
 * titles win outside the handler.
 */
function useDocumentTitle(title: string): void {
  useEffect(() => {
    const previous = document.title;
    document.title = title;
    return () => {
      if (document.title === title) document.title = previous;
    };
  }, [title]);
}

/**
 * Every handler page (SPEC.md §2) under one route: mount it at `basePath` (`/handler` by default, and
 * `/handler/*` in a router). It follows the address, including changes made with pushState.
 */
export function GatehouseHandler({ basePath = "/handler" }: { basePath?: string }) {
  const location = useLocation();
  const slug = handlerPageFor(location.pathname, basePath);
  const s = useStrings();
  const projectName = useProjectNameIfKnown();
  const page = slug ? TITLES[slug](s) : s.notFoundTitle;
  useDocumentTitle(projectName ? s.documentTitle(page, projectName) : page);
  // A fresh page per path, so that one page's form state never shows up on another.
  return <div key={location.pathname}>{slug ? PAGES[slug]() : <NotFound />}</div>;
}
