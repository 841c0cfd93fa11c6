import type { PurchaseOffer } from "@gatehouse/js";
import { type ReactNode, useCallback, useEffect, useInsertionEffect, useState } from "react";
import { useGatehouseApp } from "../../hooks.ts";
import { CardIcon, CheckIcon, SparkleIcon, XIcon } from "../../internal/icons.tsx";
import { CardHeader, Root } from "../../internal/ui.tsx";
import { Button, Loading } from "../../ui/button.tsx";
import { amountsLine } from "../../ui/money.ts";
import { Done, Failure, PriceChoice, ProductSummary, ProjectIdentity } from "./purchase-parts.tsx";
import { injectPurchaseStyles } from "./purchase-styles.ts";
import { safeReturnUrl, type Words, wordsFor } from "./purchase-words.ts";

/**
 * The purchase page (PROTOCOL-EXTRA §2.4): what a purchase URL made by `create-purchase-url` opens, for an app's end
 * user. No sign-in: the code is the credential, and the client app's purchase methods send no session. It words every
 * failure itself, never showing the API's text. Inside a GatehouseProvider (any project's app: the server finds the
 * project from the code); the server's own `/purchase/<code>` address is served by the dashboard, which renders this.
 */
type Stage =
  | { kind: "loading" }
  | { kind: "failed"; words: Words }
  | { kind: "ready"; offer: PurchaseOffer }
  | { kind: "done"; offer: PurchaseOffer };

function PurchaseFrame({ children, testId, stage }: { children: ReactNode; testId: string; stage?: string }) {
  useInsertionEffect(() => injectPurchaseStyles(), []);
  return (
    <Root className="purchase-root">
      <main className="gh-page">
        <div className="gh-card purchase-card" data-testid={testId} data-stage={stage}>
          {children}
        </div>
      </main>
    </Root>
  );
}

/** After a card payment on Stripe's page: the purchase is granted when Stripe's webhook arrives, not here. */
export function PurchasePaidPage() {
  useEffect(() => {
    document.title = "Payment received";
  }, []);
  return (
    <PurchaseFrame testId="purchase-paid">
      <CardHeader
        icon={<CheckIcon />}
        tone="success"
        title="Payment received"
        subtitle="Thank you. Your purchase is being added to your account; you can close this page now."
      />
    </PurchaseFrame>
  );
}

/** The page of one purchase code; `returnUrl` is where to go once it is bought (the URL's `return_url`). */
export function PurchasePage({ fullCode, returnUrl }: { fullCode: string; returnUrl?: string | null }) {
  const app = useGatehouseApp();
  const backTo = safeReturnUrl(returnUrl);
  const [stage, setStage] = useState<Stage>({ kind: "loading" });

  const open = useCallback(async () => {
    setStage({ kind: "loading" });
    try {
      setStage({ kind: "ready", offer: await app.validatePurchaseCode(fullCode, { returnUrl }) });
    } catch (error) {
      setStage({ kind: "failed", words: wordsFor(error, "open") });
    }
  }, [app, fullCode, returnUrl]);

  useEffect(() => {
    void open();
  }, [open]);

  useEffect(() => {
    document.title =
      stage.kind === "ready" || stage.kind === "done"
        ? `${stage.offer.product.display_name} · ${stage.offer.projectDisplayName || "Purchase"}`
        : "Purchase";
  }, [stage]);

  // Back to the app once the purchase is done.
  useEffect(() => {
    if (stage.kind === "done" && backTo) window.location.assign(backTo);
  }, [stage.kind, backTo]);

  return (
    <PurchaseFrame testId="purchase-card" stage={stage.kind}>
      {stage.kind === "loading" ? (
        <Loading label="Loading your purchase…" testId="purchase-loading" />
      ) : stage.kind === "failed" ? (
        <Failure words={stage.words} retry={stage.words.retry ? open : undefined} />
      ) : stage.kind === "done" ? (
        <Done offer={stage.offer} returnUrl={backTo} />
      ) : (
        <Checkout
          offer={stage.offer}
          fullCode={fullCode}
          returnUrl={returnUrl ?? null}
          onDone={() => setStage({ kind: "done", offer: stage.offer })}
          onFinalError={(words) => setStage({ kind: "failed", words })}
        />
      )}
    </PurchaseFrame>
  );
}

function Checkout(props: {
  offer: PurchaseOffer;
  fullCode: string;
  returnUrl: string | null;
  onDone: () => void;
  onFinalError: (words: Words) => void;
}) {
  const app = useGatehouseApp();
  const { offer } = props;
  const { product } = offer;
  const [priceId, setPriceId] = useState(Object.keys(product.prices)[0] ?? "");
  const [quantityText, setQuantityText] = useState("1");
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<Words | null>(null);
  const quantity = product.stackable ? Number(quantityText) : 1;
  const quantityOk = Number.isInteger(quantity) && quantity >= 1 && quantity <= 1_000_000;
  const chosen = product.prices[priceId];
  const canPay = offer.testMode || offer.chargesEnabled;
  const canBuy = canPay && !offer.alreadyBoughtNonStackable && Boolean(chosen) && quantityOk && !busy;

  const buy = async () => {
    setBusy(true);
    setProblem(null);
    const choice = { fullCode: props.fullCode, priceId, quantity };
    try {
      if (offer.testMode) {
        await app.completeTestModePurchase(choice);
        props.onDone();
        return;
      }
      // Card payments happen on Stripe's Checkout page, which comes back to the app's return URL when paid.
      window.location.assign(await app.createPurchaseCheckoutUrl({ ...choice, returnUrl: props.returnUrl }));
    } catch (error) {
      const words = wordsFor(error, "buy");
      if (words.final) props.onFinalError(words);
      else setProblem(words);
      setBusy(false);
    }
  };

  const total =
    chosen && product.stackable && quantityOk && quantity > 1 ? amountsLine(chosen, quantity) : null;

  return (
    <form
      className="gh-stack"
      data-testid="purchase-checkout"
      onSubmit={(event) => {
        event.preventDefault();
        if (canBuy) void buy();
      }}
    >
      {offer.testMode ? (
        <div className="purchase-test-banner" role="note" data-testid="purchase-test-mode">
          <strong>TEST MODE</strong>
          <span>No payment is taken: completing this purchase grants it right away.</span>
        </div>
      ) : null}
      <ProjectIdentity offer={offer} />
      <ProductSummary product={product} />
      {offer.alreadyBoughtNonStackable ? (
        <div className="gh-alert gh-alert-info" data-testid="purchase-already-bought">
          <CheckIcon />
          <span className="gh-alert-body">
            You already have {product.display_name}: there is nothing more to buy.
          </span>
        </div>
      ) : null}
      {offer.conflictingProducts.length > 0 ? (
        <div className="gh-alert purchase-warning" data-testid="purchase-conflicts">
          <SparkleIcon />
          <span className="gh-alert-body">
            This replaces {offer.conflictingProducts.map((conflict) => conflict.displayName).join(", ")}: it
            ends when this purchase completes.
          </span>
        </div>
      ) : null}
      <PriceChoice prices={product.prices} chosen={priceId} onChoose={setPriceId} />
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
          <XIcon />
          <span>
            <strong>{problem.title}.</strong> {problem.text}
          </span>
        </div>
      ) : null}
      {canPay ? (
        <Button type="submit" block disabled={!canBuy} loading={busy} data-testid="purchase-button">
          {offer.testMode ? "Complete test purchase" : "Pay with card"}
        </Button>
      ) : (
        <>
          <div className="gh-alert gh-alert-info" data-testid="purchase-no-cards">
            <CardIcon />
            <span className="gh-alert-body">
              Card payments are not available yet: this app has not finished connecting its payment provider,
              so this purchase cannot be paid here.
            </span>
          </div>
          <Button block disabled data-testid="purchase-button">
            Pay
          </Button>
        </>
      )}
      <p className="gh-brand">Checkout by Gatehouse</p>
    </form>
  );
}
