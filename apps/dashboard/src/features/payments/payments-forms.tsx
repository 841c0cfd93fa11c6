import { useState } from "react";
import { Field } from "../../ui/components.tsx";
import { TextField } from "../../ui/fields.tsx";
import { CatalogueModal, CustomerTypeSelect, type Save, useNewId } from "./catalogue-modal.tsx";
import { type CustomerType, idProblem, type PaymentsConfig } from "./payments-api.ts";

// ---------------------------------------------------------------------------------------------------------------
// Items and product lines
// ---------------------------------------------------------------------------------------------------------------

export function ItemFormModal(props: {
  config: PaymentsConfig;
  itemId: string | null;
  save: Save;
  onClose: () => void;
}) {
  const existing = props.itemId ? props.config.items[props.itemId] : undefined;
  const [displayName, setDisplayName] = useState(existing?.displayName ?? "");
  const [customerType, setCustomerType] = useState<CustomerType>(existing?.customerType ?? "user");
  const id = useNewId(props.itemId);
  const itemId = id.value(displayName);
  const problem = props.itemId ? null : idProblem(itemId, Object.keys(props.config.items), "item");
  return (
    <CatalogueModal
      title={props.itemId ? `Edit ${existing?.displayName ?? props.itemId}` : "New item"}
      description="Customers hold a quantity of an item. Products grant it; your server reads and spends it."
      invalid={Boolean(problem) || !displayName.trim()}
      saveLabel={props.itemId ? "Save item" : "Create item"}
      onClose={props.onClose}
      onSave={() =>
        props.save({
          [`payments.items.${itemId}`]: { displayName: displayName.trim(), customerType },
        })
      }
    >
      <TextField
        label="Display name"
        name="itemDisplayName"
        value={displayName}
        onChange={setDisplayName}
        placeholder="Credits"
      />
      <TextField
        label="Item id"
        error={displayName || !props.itemId ? problem : null}
        hint="What your code names it: getItem(id). It cannot change later."
        name="itemId"
        className={problem && displayName ? "invalid" : undefined}
        value={itemId}
        disabled={Boolean(props.itemId)}
        onChange={id.set}
      />
      <Field label="Customer type" hint="Users, teams, or customers your app names itself.">
        <CustomerTypeSelect name="itemCustomerType" value={customerType} onChange={setCustomerType} />
      </Field>
    </CatalogueModal>
  );
}

export function ProductLineFormModal(props: {
  config: PaymentsConfig;
  lineId: string | null;
  save: Save;
  onClose: () => void;
}) {
  const existing = props.lineId ? props.config.productLines[props.lineId] : undefined;
  const [displayName, setDisplayName] = useState(existing?.displayName ?? props.lineId ?? "");
  const [customerType, setCustomerType] = useState<CustomerType>(existing?.customerType ?? "user");
  const id = useNewId(props.lineId);
  const lineId = id.value(displayName);
  const problem = props.lineId
    ? null
    : idProblem(lineId, Object.keys(props.config.productLines), "product line");
  return (
    <CatalogueModal
      title={props.lineId ? `Edit ${existing?.displayName ?? props.lineId}` : "New product line"}
      description="Products in one line exclude each other: a customer holds one of them, and buying another replaces it."
      invalid={Boolean(problem) || !displayName.trim()}
      saveLabel={props.lineId ? "Save product line" : "Create product line"}
      onClose={props.onClose}
      onSave={() =>
        props.save({
          [`payments.productLines.${lineId}`]: { displayName: displayName.trim(), customerType },
        })
      }
    >
      <TextField
        label="Display name"
        name="lineDisplayName"
        value={displayName}
        onChange={setDisplayName}
        placeholder="Plans"
      />
      <TextField
        label="Product line id"
        error={displayName || !props.lineId ? problem : null}
        name="lineId"
        value={lineId}
        disabled={Boolean(props.lineId)}
        onChange={id.set}
      />
      <Field label="Customer type" hint="Every product of the line must be for this customer type.">
        <CustomerTypeSelect name="lineCustomerType" value={customerType} onChange={setCustomerType} />
      </Field>
    </CatalogueModal>
  );
}
