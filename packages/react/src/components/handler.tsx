import type { HANDLER_PAGES } from "@gatehouse/js";
import type { ReactNode } from "react";
import { useStrings } from "../context.ts";
import { useLocation } from "../internal/router.ts";
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
 * Every handler page (SPEC.md §2) under one route: mount it at `basePath` (`/handler` by default, and
 * `/handler/*` in a router). It follows the address, including changes made with pushState.
 */
export function GatehouseHandler({ basePath = "/handler" }: { basePath?: string }) {
  const location = useLocation();
  const slug = handlerPageFor(location.pathname, basePath);
  // A fresh page per path, so that one page's form state never shows up on another.
  return <div key={location.pathname}>{slug ? PAGES[slug]() : <NotFound />}</div>;
}
