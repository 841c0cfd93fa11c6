import type { ReactNode } from "react";
import { Icon } from "../../ui/icons.tsx";
import type { Offer, Words } from "./purchase-words.ts";
import "./payments.css";

export function Header(props: {
  icon: ReactNode;
  tone?: "success" | "danger" | "muted";
  title: string;
  subtitle?: ReactNode;
}) {
  return (
    <header className="gh-card-header">
      <span className={props.tone ? `gh-mark gh-mark-${props.tone}` : "gh-mark"}>{props.icon}</span>
      <h1 className="gh-title">{props.title}</h1>
      {props.subtitle ? <p className="gh-subtitle">{props.subtitle}</p> : null}
    </header>
  );
}

export function Failure({ words, retry }: { words: Words; retry?: (() => Promise<void>) | undefined }) {
  return (
    <div data-testid="purchase-error">
      <Header icon={<Icon name={words.icon} />} tone="danger" title={words.title} subtitle={words.text} />
      {retry ? (
        <button
          type="button"
          className="gh-button gh-button-secondary gh-button-block"
          onClick={() => void retry()}
        >
          Try again
        </button>
      ) : null}
    </div>
  );
}

export function Done({ offer, returnUrl }: { offer: Offer; returnUrl: string | null }) {
  return (
    <div data-testid="purchase-done">
      <Header
        icon={<Icon name="check" />}
        tone="success"
        title="Purchase complete"
        subtitle={
          offer.test_mode
            ? `${offer.product.display_name} is yours. This was a test purchase: nobody was charged.`
            : `${offer.product.display_name} is yours.`
        }
      />
      {returnUrl ? (
        <div className="gh-stack-sm">
          <p className="gh-center gh-muted">Taking you back to the app…</p>
          <a className="gh-button gh-button-secondary gh-button-block" href={returnUrl}>
            Continue
          </a>
        </div>
      ) : (
        <p className="gh-center gh-muted" data-testid="purchase-close">
          You can close this page now.
        </p>
      )}
    </div>
  );
}

export function ProjectIdentity({ offer }: { offer: Offer }) {
  const name = offer.project_display_name ?? "";
  return (
    <div className="purchase-project">
      {offer.project_logo_url ? (
        <img className="purchase-logo" src={offer.project_logo_url} alt="" />
      ) : (
        <span className="purchase-initial" aria-hidden="true">
          {(name || "?").slice(0, 1).toUpperCase()}
        </span>
      )}
      <span data-testid="purchase-project">{name}</span>
    </div>
  );
}
