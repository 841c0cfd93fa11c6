import type { DevInboxEmail } from "@gatehouse/js";
import { useUser } from "@gatehouse/react";
import { Button } from "@gatehouse/react/ui";
import { useEffect } from "react";
import { ownerMethods } from "../../gatehouse.ts";
import { Card } from "../../ui/components.tsx";
import { useAsync } from "../../ui/hooks.ts";
import "./dev-inbox.css";

/** New mail shows up without a click: the outbox worker delivers within a moment of the request. */
const POLL_MS = 4_000;

/** Links that carry something after the path: the ones an email asks its reader to open. */
const LINK = /https?:\/\/[^\s"'<>]*[?#][^\s"'<>]*/g;

/**
 * On a development server with no email server, the dashboard's own mail to the owner (the "Verify your email" of
 * the sign-up, sign-in codes) is kept rather than sent (GET /internal/dev-inbox). Shown on the account settings
 * page, where "Not verified" is, so the owner can open the link. Nothing is shown where mail really goes out.
 */
export function DevInbox() {
  const user = useUser();
  const inbox = useAsync(async () => (user ? ownerMethods(user).listDevInbox() : null), [user?.id]);
  const available = inbox.data?.isAvailable === true;
  useEffect(() => {
    if (!available) return;
    const timer = setInterval(() => void inbox.reload(), POLL_MS);
    return () => clearInterval(timer);
  }, [available, inbox.reload]);
  if (!user || !inbox.data?.isAvailable) return null;
  const items = inbox.data.items;
  return (
    <div className="dev-inbox" data-testid="dev-inbox">
      <Card
        title="Your development inbox"
        description="This server has no email server (GATEHOUSE_SMTP_URL), so the dashboard's mail to you is kept here and printed in the server's log."
        actions={
          <Button small variant="secondary" onClick={() => void inbox.reload()}>
            Refresh
          </Button>
        }
      >
        {items.length === 0 ? (
          <p className="muted small">No mail for you yet.</p>
        ) : (
          <ul className="dev-inbox-list">
            {items.map((mail) => (
              <DevInboxItem key={mail.id} mail={mail} />
            ))}
          </ul>
        )}
      </Card>
    </div>
  );
}

function DevInboxItem({ mail }: { mail: DevInboxEmail }) {
  const links = [...new Set(mail.text.match(LINK) ?? [])];
  return (
    <li className="dev-inbox-item">
      <div>
        <strong>{mail.subject}</strong>
        <span className="muted small">
          {" "}
          to {mail.to.join(", ")}, {mail.createdAt.toLocaleString()}
        </span>
      </div>
      {links.map((link) => (
        <p key={link} className="small">
          <a href={link}>{linkLabel(link)}</a>
        </p>
      ))}
      <details>
        <summary className="small">The whole message</summary>
        {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard */}
        <pre className="dev-inbox-text" tabIndex={0}>
          {mail.text}
        </pre>
      </details>
    </li>
  );
}

/** Says where a link leads by its page: "Verify your email", "Reset your password", else the link itself. */
function linkLabel(link: string): string {
  const path = new URL(link).pathname;
  if (path.endsWith("/email-verification")) return "Open the verification link";
  if (path.endsWith("/password-reset")) return "Open the password reset link";
  if (path.endsWith("/magic-link-callback")) return "Open the sign-in link";
  return link;
}
