import { Button } from "@gatehouse/react/ui";
import { useState } from "react";
import { projectPath, useProjectContext } from "../../project-context.tsx";
import { Link, useLocation } from "../../router.tsx";
import { AsyncBody } from "../../ui/async.tsx";
import { Badge, Card, PageHead, Toggle } from "../../ui/components.tsx";
import { useAsync } from "../../ui/hooks.ts";
import { useToast } from "../../ui/toast.tsx";
import { type Editing, ItemsCard, ProductLinesCard, ProductsCard } from "./catalogue-cards.tsx";
import { type PaymentsState, readPayments } from "./payments-api.ts";
import { PaymentsCustomersPage } from "./payments-customers.tsx";
import { ItemFormModal, ProductLineFormModal } from "./payments-forms.tsx";
import { PaymentsTransactionsPage } from "./payments-transactions.tsx";
import { ProductFormModal } from "./product-form.tsx";
import "./payments.css";
import { usePageTitle } from "../../ui/page-title.ts";

const TABS = [
  { id: "", label: "Catalogue" },
  { id: "customers", label: "Customers" },
  { id: "transactions", label: "Transactions" },
] as const;

/**
 * Payments (PROTOCOL-EXTRA §2): the catalogue the project sells (`payments` in its config: items, product lines,
 * products with prices and included items, test mode, blocking new purchases), its customers' items and products,
 * and the transactions. `/projects/<id>/payments[/customers|/transactions]`.
 */
export function PaymentsSection({ tab }: { tab: string | undefined }) {
  const { project } = useProjectContext();
  const { search } = useLocation();
  const state = useAsync(async () => readPayments(await project.getConfig()), [project]);
  const payments: PaymentsState = {
    state,
    save: async (override) => {
      await project.updateConfig(override);
      await state.reload();
    },
  };
  const current = TABS.find((candidate) => candidate.id === (tab ?? "")) ?? TABS[0];
  usePageTitle(current.id ? `Payments: ${current.label}` : "Payments");
  return (
    <>
      <PageHead
        title="Payments"
        description="What your app sells, who holds what, and every purchase and item change."
        actions={
          state.data ? (
            state.data.testMode ? (
              <Badge tone="warning">Test mode</Badge>
            ) : (
              <Badge tone="success">Live</Badge>
            )
          ) : null
        }
      />
      <nav className="tabs" aria-label="Payments">
        {TABS.map((candidate) => (
          <Link
            key={candidate.id}
            to={projectPath(project.id, candidate.id ? `payments/${candidate.id}` : "payments")}
            className={`tab${candidate.id === current.id ? " active" : ""}`}
          >
            {candidate.label}
          </Link>
        ))}
      </nav>
      {current.id === "customers" ? (
        <PaymentsCustomersPage payments={payments} />
      ) : current.id === "transactions" ? (
        // A new customer filter in the address (a customer's "Transactions" link) starts over.
        <PaymentsTransactionsPage key={search.toString()} items={state.data?.items ?? {}} />
      ) : (
        <CataloguePage payments={payments} />
      )}
    </>
  );
}

function CataloguePage({ payments }: { payments: PaymentsState }) {
  const { state } = payments;
  const [editing, setEditing] = useState<Editing | null>(null);
  return (
    <>
      <SettingsCard payments={payments} />
      <StripeCard />
      <AsyncBody state={state} rows={6}>
        {(config) => (
          <>
            <ProductsCard config={config} payments={payments} edit={setEditing} />
            <div className="grid2">
              <ItemsCard config={config} payments={payments} edit={setEditing} />
              <ProductLinesCard config={config} payments={payments} edit={setEditing} />
            </div>
            {editing?.kind === "product" ? (
              <ProductFormModal
                config={config}
                productId={editing.id}
                save={payments.save}
                onClose={() => setEditing(null)}
              />
            ) : null}
            {editing?.kind === "item" ? (
              <ItemFormModal
                config={config}
                itemId={editing.id}
                save={payments.save}
                onClose={() => setEditing(null)}
              />
            ) : null}
            {editing?.kind === "line" ? (
              <ProductLineFormModal
                config={config}
                lineId={editing.id}
                save={payments.save}
                onClose={() => setEditing(null)}
              />
            ) : null}
          </>
        )}
      </AsyncBody>
    </>
  );
}

function SettingsCard({ payments }: { payments: PaymentsState }) {
  const toast = useToast();
  const config = payments.state.data;
  const set = async (key: "testMode" | "blockNewPurchases", value: boolean, success: string) => {
    try {
      await payments.save({ [`payments.${key}`]: value });
      toast.success(success);
    } catch (error) {
      toast.error(error);
    }
  };
  return (
    <Card title="Selling" testId="payments-settings">
      <Toggle
        name="testMode"
        label="Test mode"
        description="Purchases complete without a payment provider and without charging anyone; they are marked as test purchases."
        checked={config?.testMode ?? true}
        disabled={!config}
        onChange={(value) => set("testMode", value, value ? "Test mode on" : "Test mode off")}
      />
      <Toggle
        name="blockNewPurchases"
        label="Block new purchases"
        description="Nobody can buy anything: purchase links and test purchases are refused. What customers hold stays."
        checked={config?.blockNewPurchases ?? false}
        disabled={!config}
        onChange={(value) =>
          set("blockNewPurchases", value, value ? "New purchases blocked" : "New purchases allowed")
        }
      />
      {config && !config.testMode ? (
        <div className="alert warning" data-testid="payments-live-warning">
          Test mode is off: purchase links work only once a Stripe account is connected (below), and the
          purchase page takes cards through Stripe Checkout. Granting products and items by hand always works.
        </div>
      ) : null}
    </Card>
  );
}

/**
 * The project's Stripe account: connect it (Stripe's onboarding, which comes back here) and see whether it can take
 * payments. A server without Stripe keys says so instead of offering a button that cannot work.
 */
function StripeCard() {
  const { app } = useProjectContext();
  const toast = useToast();
  const account = useAsync(() => app.getStripeAccountInfo(), [app]);
  const [connecting, setConnecting] = useState(false);
  const connect = async () => {
    setConnecting(true);
    try {
      const { url } = await app.setupPayments();
      window.location.assign(url);
    } catch (error) {
      toast.error(error);
      setConnecting(false);
    }
  };
  const info = account.data;
  return (
    <Card
      title="Stripe"
      testId="payments-stripe"
      actions={
        <Button
          variant="secondary"
          onClick={connect}
          loading={connecting}
          {...(info ? {} : { variant: "primary" as const })}
        >
          {info
            ? info.detailsSubmitted
              ? "Open Stripe onboarding again"
              : "Finish Stripe onboarding"
            : "Connect Stripe"}
        </Button>
      }
    >
      <AsyncBody state={account} rows={1}>
        {(found) =>
          found ? (
            <p data-testid="payments-stripe-status">
              Account <code>{found.accountId}</code>:{" "}
              {found.chargesEnabled ? (
                <Badge tone="success">Can take payments</Badge>
              ) : (
                <Badge tone="warning">Cannot take payments yet</Badge>
              )}{" "}
              {found.payoutsEnabled ? <Badge tone="success">Payouts on</Badge> : <Badge>Payouts off</Badge>}
            </p>
          ) : (
            <p className="muted" data-testid="payments-stripe-status">
              No Stripe account is connected. Connect one to sell outside test mode; customers then pay on
              Stripe Checkout and Stripe's webhook grants what they bought.
            </p>
          )
        }
      </AsyncBody>
    </Card>
  );
}
