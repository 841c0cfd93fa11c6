import { Field } from "../../ui/components.tsx";
import { Checkbox, Select, TextField } from "../../ui/fields.tsx";
import { CatalogueModal, CustomerTypeSelect, type Save } from "./catalogue-modal.tsx";
import { CUSTOMER_TYPE_LABELS, type PaymentsConfig } from "./payments-api.ts";
import { IncludedItemsFieldset, PricesFieldset } from "./product-form-sections.tsx";
import { useProductForm } from "./product-form-state.ts";

export function ProductFormModal(props: {
  config: PaymentsConfig;
  productId: string | null;
  save: Save;
  onClose: () => void;
}) {
  const { config } = props;
  const form = useProductForm(config, props.productId);
  const { existing, id, productId, problems, invalid, entry } = form;

  return (
    <CatalogueModal
      wide
      title={props.productId ? `Edit ${existing?.displayName ?? props.productId}` : "New product"}
      description="Prices without an interval are one-time purchases; with one, subscriptions."
      invalid={invalid}
      saveLabel={props.productId ? "Save product" : "Create product"}
      onClose={props.onClose}
      onSave={() => props.save({ [`payments.products.${productId}`]: entry() })}
    >
      <div className="grid2 payments-form-grid">
        <TextField
          label="Display name"
          name="productDisplayName"
          value={form.displayName}
          onChange={form.setDisplayName}
          placeholder="Pro"
        />
        <TextField
          label="Product id"
          error={form.displayName || props.productId ? problems.id : null}
          hint="Your app names it when it creates a purchase link."
          name="productId"
          value={productId}
          disabled={Boolean(props.productId)}
          onChange={id.set}
        />
        <Field label="Customer type">
          <CustomerTypeSelect
            name="productCustomerType"
            value={form.customerType}
            onChange={form.setCustomerType}
          />
        </Field>
        <Field label="Product line" hint="Optional. A customer holds one product of a line at a time.">
          <Select name="productLine" value={form.lineId} onChange={form.setLineId}>
            <option value="">None</option>
            {Object.entries(config.productLines).map(([id, line]) => (
              <option key={id} value={id}>
                {line.displayName ?? id} ({CUSTOMER_TYPE_LABELS[line.customerType].toLowerCase()})
              </option>
            ))}
          </Select>
        </Field>
      </div>
      <div className="row">
        <Checkbox name="productStackable" checked={form.stackable} onChange={form.setStackable}>
          Stackable: can be bought several times, in any quantity
        </Checkbox>
        <Checkbox name="productServerOnly" checked={form.serverOnly} onChange={form.setServerOnly}>
          Server only: clients cannot see or buy it
        </Checkbox>
      </div>

      <PricesFieldset form={form} />
      <IncludedItemsFieldset form={form} />
    </CatalogueModal>
  );
}
