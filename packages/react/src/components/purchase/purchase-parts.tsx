import type { PurchaseOffer } from "@gatehouse/js";
import type { ReactNode } from "react";
import { CheckIcon, GlobeIcon, LockIcon, XIcon } from "../../internal/icons.tsx";
import { Button, CardHeader } from "../../internal/ui.tsx";
import { amountsLine } from "../../ui/money.ts";
import { type FailureIcon, type Interval, periodWords, trialWords, type Words } from "./purchase-words.ts";

const FAILURE_ICONS: Record<FailureIcon, () => ReactNode> = {
  lock: LockIcon,
  x: XIcon,
  globe: GlobeIcon,
  check: CheckIcon,
};

export function Failure({ words, retry }: { words: Words; retry?: (() => Promise<void>) | undefined }) {
  const Icon = FAILURE_ICONS[words.icon];
  return (
    <div data-testid="purchase-error">
      <CardHeader icon={<Icon />} tone="danger" title={words.title} subtitle={words.text} />
      {retry ? (
        <Button variant="secondary" block onClick={() => void retry()}>
          Try again
        </Button>
      ) : null}
    </div>
  );
}

export function Done({ offer, returnUrl }: { offer: PurchaseOffer; returnUrl: string | null }) {
  const name = offer.product.display_name;
  return (
    <div data-testid="purchase-done">
      <CardHeader
        icon={<CheckIcon />}
        tone="success"
        title="Purchase complete"
        subtitle={
          offer.testMode
            ? `${name} is yours. This was a test purchase: nobody was charged.`
            : `${name} is yours.`
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

export function ProjectIdentity({ offer }: { offer: PurchaseOffer }) {
  const name = offer.projectDisplayName;
  return (
    <div className="purchase-project">
      {offer.projectLogoUrl ? (
        <img className="purchase-logo" src={offer.projectLogoUrl} alt="" />
      ) : (
        <span className="purchase-initial" aria-hidden="true">
          {(name || "?").slice(0, 1).toUpperCase()}
        </span>
      )}
      <span data-testid="purchase-project">{name}</span>
    </div>
  );
}

/** The product's name and the items it includes. */
export function ProductSummary({ product }: { product: PurchaseOffer["product"] }) {
  const included = Object.entries(product.included_items).filter(([, item]) => (item.quantity ?? 0) > 0);
  return (
    <div>
      <h1 className="gh-title" data-testid="purchase-product">
        {product.display_name}
      </h1>
      {included.length > 0 ? (
        <ul className="purchase-includes">
          {included.map(([itemId, item]) => (
            <li key={itemId}>
              <CheckIcon /> {(item.quantity ?? 0).toLocaleString()} {itemId}
              {item.repeat && item.repeat !== "never" ? ` ${periodWords(item.repeat as Interval)}` : ""}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

/** The product's prices as radio choices. */
export function PriceChoice(props: {
  prices: PurchaseOffer["product"]["prices"];
  chosen: string;
  onChoose: (priceId: string) => void;
}) {
  const priceIds = Object.keys(props.prices);
  if (priceIds.length === 0)
    return <p className="gh-muted">This product has no price you can choose here.</p>;
  return (
    <fieldset className="purchase-prices">
      <legend className="gh-label">Choose how to pay</legend>
      {priceIds.map((id) => {
        const price = props.prices[id]!;
        const trial = trialWords(price.free_trial);
        return (
          <label key={id} className="purchase-price" data-selected={id === props.chosen}>
            <input
              type="radio"
              name="price"
              value={id}
              checked={id === props.chosen}
              onChange={() => props.onChoose(id)}
            />
            <span className="purchase-price-text">
              <strong>{amountsLine(price)}</strong>{" "}
              <span className="gh-muted">{periodWords(price.interval)}</span>
              {trial ? <span className="gh-badge gh-badge-success">{trial}</span> : null}
            </span>
          </label>
        );
      })}
    </fieldset>
  );
}
