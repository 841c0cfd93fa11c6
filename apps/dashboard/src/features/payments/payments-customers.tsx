import { Avatar, avatarColor, Button, buttonClass } from "@gatehouse/react/ui";
import { useState } from "react";
import { projectPath, useProjectContext } from "../../project-context.tsx";
import { Link, navigate, useLocation } from "../../router.tsx";
import { AsyncBody } from "../../ui/async.tsx";
import { Badge, Card, Empty } from "../../ui/components.tsx";
import { Select, TextInput } from "../../ui/fields.tsx";
import { useAsync } from "../../ui/hooks.ts";
import { Icon } from "../../ui/icons.tsx";
import { UserPicker } from "../../ui/user-picker.tsx";
import { ItemsCard } from "./customer-items-card.tsx";
import { ProductsCard, TestPurchaseCard } from "./customer-products-card.tsx";
import {
  CUSTOMER_TYPE_LABELS,
  CUSTOMER_TYPES,
  type Customer,
  type CustomerType,
  type PaymentsConfig,
  type PaymentsState,
} from "./payments-api.ts";

/** `?type=user&id=…`: the customer open on the page, so a link (or a transaction's row) can open one. */
function useCustomerInUrl(): [Customer | null, (customer: Customer | null) => void] {
  const { project } = useProjectContext();
  const { search } = useLocation();
  const type = search.get("type");
  const id = search.get("id");
  const customer =
    type && id && (CUSTOMER_TYPES as readonly string[]).includes(type)
      ? { type: type as CustomerType, id }
      : null;
  const set = (next: Customer | null) => {
    const base = projectPath(project.id, "payments/customers");
    navigate(next ? `${base}?type=${next.type}&id=${encodeURIComponent(next.id)}` : base);
  };
  return [customer, set];
}

/**
 * A customer's side of payments: look up a user, team or custom customer; their item quantities with grants and
 * revocations by hand; the products they hold, granting one and cancelling a subscription; and a test purchase
 * link that opens the purchase page as the customer would see it.
 */
export function PaymentsCustomersPage({ payments }: { payments: PaymentsState }) {
  const [customer, setCustomer] = useCustomerInUrl();
  return (
    <>
      <CustomerFinder current={customer} onPick={setCustomer} />
      <AsyncBody state={payments.state} rows={4}>
        {(config) =>
          customer ? (
            <CustomerView key={`${customer.type}/${customer.id}`} customer={customer} config={config} />
          ) : (
            <Card>
              <Empty icon={<Icon name="search" size={22} />} title="Choose a customer">
                Find a user by name or email, pick a team, or type the id your app uses for a custom customer.
              </Empty>
            </Card>
          )
        }
      </AsyncBody>
    </>
  );
}

function CustomerFinder(props: { current: Customer | null; onPick: (customer: Customer) => void }) {
  const { app } = useProjectContext();
  const [type, setType] = useState<CustomerType>(props.current?.type ?? "user");
  const [customId, setCustomId] = useState(props.current?.type === "custom" ? props.current.id : "");
  const teams = useAsync(() => (type === "team" ? app.listTeams() : Promise.resolve([])), [app, type]);
  return (
    <Card title="Find a customer" testId="payments-customer-finder">
      <div className="row payments-finder">
        <Select
          name="customerType"
          aria-label="Customer type"
          value={type}
          onChange={setType}
          className="payments-type-select"
          options={CUSTOMER_TYPES.map((choice) => [choice, CUSTOMER_TYPE_LABELS[choice]] as const)}
        />
        <div className="payments-finder-input">
          {type === "user" ? (
            <UserPicker name="customerUser" onPick={(user) => props.onPick({ type: "user", id: user.id })} />
          ) : type === "team" ? (
            <select
              name="customerTeam"
              aria-label="Team"
              value={props.current?.type === "team" ? props.current.id : ""}
              onChange={(e) => e.target.value && props.onPick({ type: "team", id: e.target.value })}
            >
              <option value="">{teams.data ? "Choose a team…" : "Loading teams…"}</option>
              {(teams.data ?? []).map((team) => (
                <option key={team.id} value={team.id}>
                  {team.displayName}
                </option>
              ))}
            </select>
          ) : (
            <form
              className="row payments-nowrap"
              onSubmit={(event) => {
                event.preventDefault();
                if (customId.trim()) props.onPick({ type: "custom", id: customId.trim() });
              }}
            >
              <TextInput
                name="customerId"
                aria-label="Custom customer id"
                placeholder="The id your app uses, e.g. an organisation id"
                value={customId}
                onChange={setCustomId}
              />
              <Button variant="secondary" type="submit" disabled={!customId.trim()}>
                Open
              </Button>
            </form>
          )}
        </div>
      </div>
    </Card>
  );
}

function CustomerHeading({ customer }: { customer: Customer }) {
  const { app, project } = useProjectContext();
  const who = useAsync(async () => {
    if (customer.type === "user") {
      const user = await app.getUser(customer.id);
      return user
        ? {
            name: user.displayName ?? user.primaryEmail ?? "Anonymous user",
            detail: user.primaryEmail,
            image: user.profileImageUrl,
          }
        : null;
    }
    if (customer.type === "team") {
      const team = await app.getTeam(customer.id);
      return team ? { name: team.displayName, detail: null, image: team.profileImageUrl } : null;
    }
    return { name: customer.id, detail: null, image: null };
  }, [app, customer.type, customer.id]);
  const profile =
    customer.type === "user"
      ? projectPath(project.id, `users/${encodeURIComponent(customer.id)}`)
      : customer.type === "team"
        ? projectPath(project.id, `teams/${encodeURIComponent(customer.id)}`)
        : null;
  return (
    <div className="payments-customer-head" data-testid="payments-customer">
      <Avatar
        name={who.data?.name ?? customer.id}
        color={avatarColor(customer.id)}
        imageUrl={who.data?.image}
        large
      />
      <div style={{ flex: 1, minWidth: 0 }}>
        <h2>
          {who.data === null ? `Unknown ${customer.type}` : (who.data?.name ?? "…")}{" "}
          <Badge>{CUSTOMER_TYPE_LABELS[customer.type]}</Badge>
        </h2>
        <div className="small muted mono">{customer.id}</div>
        {who.data?.detail && who.data.detail !== who.data.name ? (
          <div className="small muted">{who.data.detail}</div>
        ) : null}
      </div>
      <div className="row">
        {profile ? (
          <Link to={profile} className={buttonClass({ variant: "secondary", small: true })}>
            Open {customer.type}
          </Link>
        ) : null}
        <Link
          to={`${projectPath(project.id, "payments/transactions")}?customer_type=${customer.type}&customer_id=${encodeURIComponent(customer.id)}`}
          className={buttonClass({ variant: "secondary", small: true })}
        >
          Transactions
        </Link>
      </div>
    </div>
  );
}

function CustomerView({ customer, config }: { customer: Customer; config: PaymentsConfig }) {
  // Bumped when a product is granted or cancelled: its included items change the quantities too.
  const [version, setVersion] = useState(0);
  return (
    <>
      <Card>
        <CustomerHeading customer={customer} />
      </Card>
      <ItemsCard customer={customer} config={config} version={version} />
      <ProductsCard customer={customer} config={config} onChanged={() => setVersion((v) => v + 1)} />
      <TestPurchaseCard customer={customer} config={config} />
    </>
  );
}
