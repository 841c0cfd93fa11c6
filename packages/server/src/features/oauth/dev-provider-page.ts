/** The one page of the development OpenID provider: "sign in as a test account named by any email address". */
import { escapeHtml } from "../../http/html.ts";

const STYLE = `
  body { font-family: system-ui, sans-serif; background: #f4f4f5; margin: 0; padding: 48px 16px; color: #18181b; }
  main { max-width: 380px; margin: 0 auto; background: white; border-radius: 12px; padding: 28px;
         box-shadow: 0 1px 3px rgba(0,0,0,.12); }
  h1 { font-size: 20px; margin: 0 0 8px; }
  p { font-size: 14px; line-height: 1.5; color: #52525b; }
  label { display: block; font-size: 14px; font-weight: 600; margin: 16px 0 6px; }
  input { width: 100%; box-sizing: border-box; padding: 10px; font-size: 15px; border: 1px solid #d4d4d8; border-radius: 8px; }
  .buttons { display: flex; gap: 8px; margin-top: 16px; }
  button { flex: 1; padding: 10px; font-size: 15px; border-radius: 8px; border: 1px solid #d4d4d8; background: white; cursor: pointer; }
  button.primary { background: #18181b; color: white; border-color: #18181b; }
  .error { color: #b91c1c; font-size: 14px; }
`;

function layout(title: string, body: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body><main>${body}</main></body>
</html>`;
}

export function devLoginPage(input: {
  uid: string;
  clientId: string;
  error?: string;
  email?: string;
}): string {
  return layout(
    `Development stand-in for ${input.clientId}`,
    `<h1>Development sign-in: not the real ${escapeHtml(input.clientId)}</h1>
<p>This page is a stand-in for <strong>${escapeHtml(input.clientId)}</strong>, built into Gatehouse for development,
because this server has no OAuth credentials for ${escapeHtml(input.clientId)}. Nothing is checked: type any email
address to sign in as a test account of this stand-in.</p>
<p>The test account gets the address marked, e.g. <code>ada@example.com.dev-oauth.invalid</code> for
<code>ada@example.com</code>: unverified, never delivered to, and never the address of an existing account. The same
address always brings you back to the same test account.</p>
<form method="post" action="/interaction/${escapeHtml(input.uid)}">
  <label for="email">Email address</label>
  <input id="email" name="email" type="email" autocomplete="email" required autofocus
         value="${escapeHtml(input.email ?? "")}">
  ${input.error ? `<p class="error">${escapeHtml(input.error)}</p>` : ""}
  <div class="buttons">
    <button type="submit" name="action" value="cancel" formnovalidate>Cancel</button>
    <button type="submit" name="action" value="sign-in" class="primary">Sign in</button>
  </div>
</form>`,
  );
}

export function devErrorPage(message: string): string {
  return layout(
    "Development sign-in",
    `<h1>Development sign-in</h1><p class="error">${escapeHtml(message)}</p>`,
  );
}
