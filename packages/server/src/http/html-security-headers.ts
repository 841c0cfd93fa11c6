/**
 * Headers for every HTML page the server answers (the dashboard and its /handler pages, the API reference).
 *
 * - script-src 'self': only our own bundled files run; no inline script, so an injected `<script>` or `onclick=`
 *   does nothing even if some text escaped escaping.
 * - style-src allows inline styles: React sets `style=` attributes and @gatehouse/react injects its stylesheet at
 *   run time. Styles cannot run code.
 * - img-src allows data: and https: (profile pictures and logos live on other hosts, or inline as data URLs).
 * - connect-src 'self': the dashboard talks to this server's API only.
 * - frame-ancestors 'none': no page of ours may be framed (clickjacking a sign-in or a project deletion).
 * - form-action 'self': a form can only post back here.
 * Referrer-Policy keeps paths and query strings (which can hold codes) to our own origin. Permissions-Policy turns
 * off powerful features no page uses and keeps WebAuthn (passkeys) for this origin only.
 */
export const HTML_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy": [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: https:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; "),
  "referrer-policy": "strict-origin-when-cross-origin",
  "permissions-policy":
    "camera=(), microphone=(), geolocation=(), payment=(), usb=(), publickey-credentials-create=(self), publickey-credentials-get=(self)",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
};
