import { Button } from "@gatehouse/react/ui";
import { type ReactNode, useState } from "react";
import { Select } from "../../ui/fields.tsx";
import { useSubmit } from "../../ui/hooks.ts";
import { Modal } from "../../ui/modal.tsx";
import { CUSTOMER_TYPE_LABELS, CUSTOMER_TYPES, type CustomerType, slug } from "./payments-api.ts";

export type Save = (override: Record<string, unknown>) => Promise<void>;

/**
 * The frame of every catalogue form: the fields, the server's refusal beside them (a config write is checked whole
 * on the server, e.g. "payments.products.pro.prices.monthly.USD: must be an amount …"), Cancel and Save.
 */
export function CatalogueModal(props: {
  title: string;
  description: ReactNode;
  wide?: boolean;
  invalid: boolean;
  saveLabel: string;
  onClose: () => void;
  onSave: () => Promise<void>;
  children: ReactNode;
}) {
  const { busy, error, run } = useSubmit();
  const submit = () =>
    run(async () => {
      await props.onSave();
      props.onClose();
    });
  return (
    <Modal
      title={props.title}
      description={props.description}
      wide={props.wide}
      onClose={() => !busy && props.onClose()}
      footer={
        <>
          <Button variant="secondary" onClick={props.onClose} disabled={busy}>
            Cancel
          </Button>
          <Button loading={busy} disabled={props.invalid} onClick={submit}>
            {props.saveLabel}
          </Button>
        </>
      }
    >
      <form
        className="stack payments-form"
        onSubmit={(event) => {
          event.preventDefault();
          if (!props.invalid && !busy) void submit();
        }}
      >
        {props.children}
        {error ? (
          <div className="alert danger" role="alert" data-testid="payments-form-error">
            <div>
              <strong>The server refused this change.</strong>
              <div className="payments-error-text">{error}</div>
            </div>
          </div>
        ) : null}
        {/* Enter in a field submits. */}
        <button type="submit" hidden />
      </form>
    </Modal>
  );
}

export function CustomerTypeSelect(props: {
  name: string;
  value: CustomerType;
  onChange: (value: CustomerType) => void;
}) {
  return (
    <Select
      name={props.name}
      value={props.value}
      onChange={props.onChange}
      options={CUSTOMER_TYPES.map((type) => [type, CUSTOMER_TYPE_LABELS[type]] as const)}
    />
  );
}

/** An id field for a new entry, proposed from the display name until typed into. */
export function useNewId(existing: string | null) {
  const [typed, setTyped] = useState<string | null>(null);
  return {
    value: (displayName: string) => existing ?? typed ?? slug(displayName),
    set: setTyped,
  };
}
