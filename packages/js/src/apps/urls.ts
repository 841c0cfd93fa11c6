/** The handler pages and where they live below the handler base path (SPEC.md §2). */
export const HANDLER_PAGES = {
  signIn: "sign-in",
  signUp: "sign-up",
  signOut: "sign-out",
  emailVerification: "email-verification",
  passwordReset: "password-reset",
  forgotPassword: "forgot-password",
  oauthCallback: "oauth-callback",
  magicLinkCallback: "magic-link-callback",
  accountSettings: "account-settings",
  error: "error",
  teamInvitation: "team-invitation",
  mfa: "mfa",
  cliAuthConfirm: "cli-auth-confirm",
  /** Opened by the dashboard with an impersonation session's tokens in the fragment. */
  impersonate: "impersonate",
} as const;

export type HandlerPageName = keyof typeof HANDLER_PAGES;
export type HandlerUrlName =
  | "handler"
  | "home"
  | "afterSignIn"
  | "afterSignUp"
  | "afterSignOut"
  | HandlerPageName;

/** Every URL the app redirects to, resolved. */
export type HandlerUrls = Record<HandlerUrlName, string>;

/** The `urls` option: any URL may be given; the rest derive from `handler` (default /handler) and `home` (/). */
export type HandlerUrlOptions = Partial<HandlerUrls>;

/** The query parameter that carries the page to come back to after signing in or up. */
export const AFTER_AUTH_RETURN_TO = "after_auth_return_to";

export function resolveHandlerUrls(options: HandlerUrlOptions = {}): HandlerUrls {
  const handler = (options.handler ?? "/handler").replace(/\/+$/, "") || "/";
  const home = options.home ?? "/";
  const pages = Object.fromEntries(
    (Object.entries(HANDLER_PAGES) as [HandlerPageName, string][]).map(([name, slug]) => [
      name,
      options[name] ?? `${handler === "/" ? "" : handler}/${slug}`,
    ]),
  ) as Record<HandlerPageName, string>;
  return {
    ...pages,
    handler,
    home,
    afterSignIn: options.afterSignIn ?? home,
    afterSignUp: options.afterSignUp ?? options.afterSignIn ?? home,
    afterSignOut: options.afterSignOut ?? home,
  };
}

export const UNTRUSTED_REDIRECT_MESSAGE = "Redirect URL is not trusted; should be relative";

/**
 * Where a redirect may go: a path on this site (`/x`, never `//host` or `/\host`), or an absolute URL on the same
 * origin as the current page. Returns the URL to navigate to, or throws.
 */
export function checkRedirectTarget(url: string | URL, currentOrigin: string | null): string {
  const text = url.toString();
  if (text.startsWith("/") && !text.startsWith("//") && !text.startsWith("/\\") && !/[\s\\]/.test(text)) {
    return text;
  }
  if (currentOrigin !== null) {
    try {
      const parsed = new URL(text);
      if ((parsed.protocol === "http:" || parsed.protocol === "https:") && parsed.origin === currentOrigin) {
        return parsed.toString();
      }
    } catch {
      // Not a URL at all: refused below.
    }
  }
  throw new Error(`${UNTRUSTED_REDIRECT_MESSAGE} (got ${JSON.stringify(text)}).`);
}

/** A handler URL made absolute (email links and OAuth redirects leave the site, so they need one). */
export function absoluteUrl(url: string, origin: string | null, what: string): string {
  try {
    return new URL(url).toString();
  } catch {
    if (origin === null) {
      throw new Error(
        `${what} must be an absolute URL outside the browser (got ${JSON.stringify(url)}); pass one explicitly or set it in the urls option.`,
      );
    }
    return new URL(url, origin).toString();
  }
}

/** The page's origin, or null outside a browser. */
export function currentOrigin(): string | null {
  return typeof window !== "undefined" && window.location ? window.location.origin : null;
}
