import { isKnownError } from "@gatehouse/js";
import { Button } from "@gatehouse/react/ui";
import { useMemo, useState } from "react";
import { useProjectContext } from "../../project-context.tsx";
import { AsyncCard } from "../../ui/async.tsx";
import { Empty, Field, Table } from "../../ui/components.tsx";
import { Checkbox, Select, TextField } from "../../ui/fields.tsx";
import { errorMessage, useAsync } from "../../ui/hooks.ts";
import { Icon } from "../../ui/icons.tsx";
import { useToast } from "../../ui/toast.tsx";
import { type Customer, type PaymentsConfig, paymentsApi } from "./payments-api.ts";

export function ItemsCard(props: { customer: Customer; config: PaymentsConfig; version: number }) {
  const { customer, config, version } = props;
  const { app } = useProjectContext();
  const api = useMemo(() => paymentsApi(app), [app]);
  const toast = useToast();
  const items = Object.entries(config.items).filter(([, item]) => item.customerType === customer.type);
  const itemIds = items.map(([id]) => id).join(",");
  const quantities = useAsync(
    async () =>
      Object.fromEntries(
        await Promise.all(items.map(async ([id]) => [id, await api.itemQuantity(customer, id)] as const)),
      ),
    [api, customer.type, customer.id, itemIds, version],
  );
  const [itemId, setItemId] = useState(items[0]?.[0] ?? "");
  const [amount, setAmount] = useState("1");
  const [description, setDescription] = useState("");
  const [allowNegative, setAllowNegative] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const amountOk = /^[0-9]+$/.test(amount.trim()) && Number(amount) >= 1;

  const change = async (sign: 1 | -1) => {
    setBusy(true);
    setError(null);
    try {
      await api.changeItemQuantity(customer, itemId, {
        delta: sign * Number(amount),
        description: description.trim(),
        // Granting never needs it; a revocation only when the owner says the quantity may go below zero.
        allowNegative: sign === 1 || allowNegative,
      });
      await quantities.reload();
      const name = config.items[itemId]?.displayName ?? itemId;
      toast.success(sign === 1 ? `Granted ${amount} ${name}` : `Revoked ${amount} ${name}`);
      setDescription("");
    } catch (caught) {
      setError(
        isKnownError(caught, "ITEM_QUANTITY_INSUFFICIENT_AMOUNT")
          ? `The customer has only ${quantities.data?.[itemId] ?? 0} ${config.items[itemId]?.displayName ?? itemId}. Tick “Allow below zero” to revoke anyway.`
          : errorMessage(caught),
      );
    } finally {
      setBusy(false);
    }
  };

  return (
    <AsyncCard
      flush
      title="Items"
      description={`Quantities this ${customer.type} holds now. A change by hand is recorded as a transaction.`}
      state={quantities}
      rows={2}
      testId="payments-customer-items"
      isEmpty={() => items.length === 0}
      empty={
        <Empty title={`No ${customer.type} items in the catalogue`}>
          Items are for one customer type; create one for {customer.type}s on the Catalogue tab.
        </Empty>
      }
      after={
        items.length > 0 ? (
          <form
            className="card-body payments-adjust"
            onSubmit={(event) => {
              event.preventDefault();
              if (amountOk && itemId && !busy) void change(1);
            }}
          >
            <div className="row payments-adjust-row">
              <Field label="Item">
                <Select name="adjustItem" value={itemId} onChange={setItemId}>
                  {items.map(([id, item]) => (
                    <option key={id} value={id}>
                      {item.displayName}
                    </option>
                  ))}
                </Select>
              </Field>
              <TextField
                label="Quantity"
                type="number"
                min={1}
                name="adjustAmount"
                className="payments-count"
                value={amount}
                onChange={setAmount}
              />
              <TextField
                label="Note (optional)"
                name="adjustDescription"
                placeholder="Goodwill credit"
                value={description}
                onChange={setDescription}
              />
            </div>
            <div className="row">
              <Checkbox name="adjustAllowNegative" checked={allowNegative} onChange={setAllowNegative}>
                Allow below zero when revoking
              </Checkbox>
              <span style={{ flex: 1 }} />
              <Button type="submit" loading={busy} disabled={!amountOk || !itemId}>
                <Icon name="plus" /> Grant
              </Button>
              <Button
                variant="danger-outline"
                disabled={!amountOk || !itemId || busy}
                onClick={() => change(-1)}
              >
                Revoke
              </Button>
            </div>
            {error ? (
              <div className="alert danger" role="alert" data-testid="payments-adjust-error">
                {error}
              </div>
            ) : null}
          </form>
        ) : null
      }
    >
      {(data) => (
        <Table testId="payments-customer-items-table">
          <thead>
            <tr>
              <th>Item</th>
              <th style={{ textAlign: "right" }}>Quantity</th>
            </tr>
          </thead>
          <tbody>
            {items.map(([id, item]) => (
              <tr key={id} data-item-id={id}>
                <td>
                  <strong>{item.displayName}</strong> <span className="small mono muted">{id}</span>
                </td>
                <td
                  className={`payments-quantity${(data[id] ?? 0) < 0 ? " negative" : ""}`}
                  data-testid={`quantity-${id}`}
                >
                  {(data[id] ?? 0).toLocaleString()}
                </td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
    </AsyncCard>
  );
}
