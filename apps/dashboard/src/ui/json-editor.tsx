import { Button } from "@gatehouse/react/ui";
import { type ReactNode, useState } from "react";
import { TextAreaField } from "./fields.tsx";
import { errorMessage } from "./hooks.ts";
import { useToast } from "./toast.tsx";

/** Parses JSON for an editor; `null` error means valid. */
export function parseJson(
  text: string,
  options: { object?: boolean } = {},
): { value: unknown; error: string | null } {
  if (text.trim() === "") return { value: null, error: null };
  try {
    const value = JSON.parse(text);
    if (options.object && (typeof value !== "object" || value === null || Array.isArray(value))) {
      return { value, error: "Must be a JSON object." };
    }
    return { value, error: null };
  } catch (error) {
    return { value: undefined, error: `Invalid JSON: ${errorMessage(error)}` };
  }
}

/** A JSON textarea that validates as you type and saves only valid JSON. */
export function JsonEditor(props: {
  label: string;
  hint?: ReactNode;
  value: unknown;
  onSave: (value: unknown) => Promise<void>;
  object?: boolean;
  name: string;
  rows?: number;
}) {
  const initial =
    props.value === null || props.value === undefined ? "" : JSON.stringify(props.value, null, 2);
  const [text, setText] = useState(initial);
  const [busy, setBusy] = useState(false);
  const toast = useToast();
  const parsed = parseJson(text, { object: props.object ?? false });
  const dirty = text !== initial;
  return (
    <div className="stack" data-testid={`json-${props.name}`}>
      <TextAreaField
        label={props.label}
        hint={props.hint}
        error={parsed.error}
        name={props.name}
        className={parsed.error ? "invalid" : ""}
        rows={props.rows ?? 6}
        placeholder={'Nothing stored. Type JSON, e.g. { "plan": "pro" }'}
        value={text}
        spellCheck={false}
        onChange={setText}
      />
      <div className="row end">
        {dirty ? (
          <Button small variant="ghost" onClick={() => setText(initial)}>
            Reset
          </Button>
        ) : null}
        <Button
          small
          disabled={!dirty || parsed.error !== null}
          loading={busy}
          onClick={async () => {
            setBusy(true);
            try {
              await props.onSave(parsed.value);
              toast.success(`${props.label} saved`);
            } catch (error) {
              toast.error(error);
            } finally {
              setBusy(false);
            }
          }}
        >
          Save
        </Button>
      </div>
    </div>
  );
}
