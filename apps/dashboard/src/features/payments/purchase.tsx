import { injectStyles } from "@gatehouse/react";
import { useCallback, useEffect, useInsertionEffect, useState } from "react";
import { useLocation } from "../../router.tsx";
import { Icon } from "../../ui/icons.tsx";
import { useTheme } from "../../ui/theme.tsx";
import { Done, Failure, Header, ProjectIdentity } from "./purchase-parts.tsx";
import {
  amountsOf,
  decodedCode,
  formatAmount,
  type Offer,
  periodWords,
  post,
  safeReturnUrl,
  trialWords,
  type Words,
  wordsFor,
} from "./purchase-words.ts";
import "./payments.css";

/**
 * The purchase page, `/purchase/<project id>_<code>?return_url=…` (PROTOCOL-EXTRA §2.4): what a purchase URL made
 * by `create-purchase-url` opens, for an app's end user. No dashboard chrome and no sign-in: the code is the
 * credential, and both routes it calls are public (no project headers; the server finds the project from the code's
 * prefix). It looks like the handler pages (@gatehouse/react's card and tokens) and words every failure itself,
 * never showing the API's text.
 */

type Stage =
  | { kind: "loading" }
  | { kind: "failed"; words: Words }
  | { kind: "ready"; offer: Offer }
  | { kind: "done"; offer: Offer };

/** Where Stripe Checkout comes back to when the app gave no return URL (payments/stripe-routes.ts). */
const PAID_PATH = "/purchase/done";

export function PurchasePage() {
  const { pathname } = useLocation();
  return pathname === PAID_PATH ? <PaidPage /> : <PurchaseCodePage />;
}

/** After a card payment on Stripe's page: the purchase is granted when Stripe's webhook arrives, not here. */
function PaidPage() {
  const theme = useTheme();
  useInsertionEffect(() => injectStyles(), []);
  useEffect(() => {
    document.title = "Payment received";
  }, []);
  return (
    <div className="gh-root purchase-root" data-gh-theme={theme}>
      <main className="gh-page">
        <div className="gh-card purchase-card" data-testid="purchase-paid">
          <Header
            icon={<Icon name="check" />}
            tone="success"
            title="Payment received"
            subtitle="Thank you. Your purchase is being added to your account; you can close this page now."
          />
        </div>
      </main>
    </div>
  );
}

function PurchaseCodePage() {
  const { pathname, search } = useLocation();
  const theme = useTheme();
  const fullCode = decodedCode(pathname);
  const rawReturnUrl = search.get("return_url");
  const returnUrl = safeReturnUrl(rawReturnUrl);
  const [stage, setStage] = useState<Stage>({ kind: "loading" });

  useInsertionEffect(() => injectStyles(), []);

  const open = useCallback(async () => {
    setStage({ kind: "loading" });
    try {
      const offer = await post<Offer>("/payments/purchases/validate-code", {
        full_code: fullCode,
        ...(rawReturnUrl ? { return_url: rawReturnUrl } : {}),
      });
      setStage({ kind: "ready", offer });
    } catch (error) {
      setStage({ kind: "failed", words: wordsFor(error, "open") });
    }
  }, [fullCode, rawReturnUrl]);

  useEffect(() => {
    void open();
  }, [open]);

  useEffect(() => {
    const name =
      stage.kind === "ready" || stage.kind === "done"
        ? `${stage.offer.product.display_name} · ${stage.offer.project_display_name ?? "Purchase"}`
        : "Purchase";
    document.title = name;
  }, [stage]);

  // Back to the app once the purchase is done.
  useEffect(() => {
    if (stage.kind === "done" && returnUrl) window.location.assign(returnUrl);
  }, [stage.kind, returnUrl]);

  return (
    <div className="gh-root purchase-root" data-gh-theme={theme}>
      <main className="gh-page">
        <div className="gh-card purchase-card" data-testid="purchase-card" data-stage={stage.kind}>
          {stage.kind === "loading" ? (
            <div className="gh-loading" aria-busy="true" data-testid="purchase-loading">
              <span className="gh-spinner gh-spinner-lg" />
              Loading your purchase…
            </div>
          ) : stage.kind === "failed" ? (
            <Failure words={stage.words} retry={stage.words.retry ? open : undefined} />
          ) : stage.kind === "done" ? (
            <Done offer={stage.offer} returnUrl={returnUrl} />
          ) : (
            <Checkout
              offer={stage.offer}
              fullCode={fullCode}
              returnUrl={rawReturnUrl}
              onDone={() => setStage({ kind: "done", offer: stage.offer })}
              onFinalError={(words) => setStage({ kind: "failed", words })}
            />
          )}
        </div>
      </main>
    </div>
  );
}

function Checkout(props: {
  offer: Offer;
  fullCode: string;
  returnUrl: string | null;
  onDone: () => void;
  onFinalError: (words: Words) => void;
}) {
  const { offer } = props;
  const { product } = offer;
  const priceIds = Object.keys(product.prices);
  const [priceId, setPriceId] = useState(priceIds[0] ?? "");
  const [quantityText, setQuantityText] = useState("1");
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<Words | null>(null);
  const quantity = product.stackable ? Number(quantityText) : 1;
  const quantityOk = Number.isInteger(quantity) && quantity >= 1 && quantity <= 1_000_000;
  const chosen = product.prices[priceId];
  const canPay = offer.test_mode || offer.charges_enabled;
  const canBuy = canPay && !offer.already_bought_non_stackable && Boolean(chosen) && quantityOk && !busy;

  const buy = async () => {
    setBusy(true);
    setProblem(null);
    try {
      if (offer.test_mode) {
        await post("/internal/payments/test-mode-purchase-session", {
          full_code: props.fullCode,
          price_id: priceId,
          quantity,
        });
        props.onDone();
        return;
      }
      // Card payments happen on Stripe's Checkout page, which comes back to the app's return URL when paid.
      const { url } = await post<{ url: string }>("/payments/purchases/checkout-session", {
        full_code: props.fullCode,
        price_id: priceId,
        quantity,
        ...(props.returnUrl ? { return_url: props.returnUrl } : {}),
      });
      window.location.assign(url);
    } catch (error) {
      const words = wordsFor(error, "buy");
      if (words.final) props.onFinalError(words);
      else setProblem(words);
      setBusy(false);
    }
  };

  const included = Object.entries(product.included_items).filter(([, item]) => item.quantity > 0);
  const total =
    chosen && product.stackable && quantityOk && quantity > 1
      ? amountsOf(chosen)
          .map(([currency, amount]) => formatAmount(currency, String(Number(amount) * quantity)))
          .join(" / ")
      : null;

  return (
    <form
      className="gh-stack"
      data-testid="purchase-checkout"
      onSubmit={(event) => {
        event.preventDefault();
        if (canBuy) void buy();
      }}
    >
      {offer.test_mode ? (
        <div className="purchase-test-banner" role="note" data-testid="purchase-test-mode">
          <strong>TEST MODE</strong>
          <span>No payment is taken: completing this purchase grants it right away.</span>
        </div>
      ) : null}
      <ProjectIdentity offer={offer} />
      <div>
        <h1 className="gh-title" data-testid="purchase-product">
          {product.display_name}
        </h1>
        {included.length > 0 ? (
          <ul className="purchase-includes">
            {included.map(([itemId, item]) => (
              <li key={itemId}>
                <Icon name="check" /> {item.quantity.toLocaleString()} {itemId}
                {item.repeat !== "never" ? ` ${periodWords(item.repeat)}` : ""}
              </li>
            ))}
          </ul>
        ) : null}
      </div>

      {offer.already_bought_non_stackable ? (
        <div className="gh-alert gh-alert-info" data-testid="purchase-already-bought">
          <Icon name="check" />
          <span className="gh-alert-body">
            You already have {product.display_name}: there is nothing more to buy.
          </span>
        </div>
      ) : null}
      {offer.conflicting_products.length > 0 ? (
        <div className="gh-alert purchase-warning" data-testid="purchase-conflicts">
          <Icon name="sparkle" />
          <span className="gh-alert-body">
            This replaces {offer.conflicting_products.map((conflict) => conflict.display_name).join(", ")}: it
            ends when this purchase completes.
          </span>
        </div>
      ) : null}

      {priceIds.length === 0 ? (
        <p className="gh-muted">This product has no price you can choose here.</p>
      ) : (
        <fieldset className="purchase-prices">
          <legend className="gh-label">Choose how to pay</legend>
          {priceIds.map((id) => {
            const price = product.prices[id]!;
            const trial = trialWords(price.free_trial);
            return (
              <label key={id} className="purchase-price" data-selected={id === priceId}>
                <input
                  type="radio"
                  name="price"
                  value={id}
                  checked={id === priceId}
                  onChange={() => setPriceId(id)}
                />
                <span className="purchase-price-text">
                  <strong>
                    {amountsOf(price)
                      .map(([currency, amount]) => formatAmount(currency, amount))
                      .join(" / ")}
                  </strong>{" "}
                  <span className="gh-muted">{periodWords(price.interval)}</span>
                  {trial ? <span className="gh-badge gh-badge-success">{trial}</span> : null}
                </span>
              </label>
            );
          })}
        </fieldset>
      )}

      {product.stackable ? (
        <div className="gh-field">
          <label className="gh-label" htmlFor="purchase-quantity">
            Quantity
          </label>
          <input
            id="purchase-quantity"
            className="gh-input"
            type="number"
            name="quantity"
            min={1}
            max={1_000_000}
            step={1}
            value={quantityText}
            aria-invalid={!quantityOk}
            onChange={(event) => setQuantityText(event.target.value)}
          />
          {!quantityOk ? <p className="gh-field-error">Choose a whole number, 1 or more.</p> : null}
          {total ? (
            <p className="gh-hint" data-testid="purchase-total">
              Total: {total}
            </p>
          ) : null}
        </div>
      ) : null}

      {problem ? (
        <div className="gh-alert gh-alert-error" role="alert" data-testid="purchase-problem">
          <Icon name="x" />
          <span>
            <strong>{problem.title}.</strong> {problem.text}
          </span>
        </div>
      ) : null}

      {canPay ? (
        <button
          type="submit"
          className="gh-button gh-button-block"
          disabled={!canBuy}
          aria-busy={busy}
          data-testid="purchase-button"
        >
          {busy ? <span className="gh-spinner" /> : null}
          {offer.test_mode ? "Complete test purchase" : "Pay with card"}
        </button>
      ) : (
        <>
          <div className="gh-alert gh-alert-info" data-testid="purchase-no-cards">
            <Icon name="card" />
            <span className="gh-alert-body">
              Card payments are not available yet: this app has not finished connecting its payment provider,
              so this purchase cannot be paid here.
            </span>
          </div>
          <button type="button" className="gh-button gh-button-block" disabled data-testid="purchase-button">
            Pay
          </button>
        </>
      )}
      <p className="gh-brand">Checkout by Gatehouse</p>
    </form>
  );
}
