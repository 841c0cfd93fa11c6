import { Card } from "./components.tsx";
import { JsonEditor } from "./json-editor.tsx";

type Metadata = {
  clientMetadata: unknown;
  clientReadOnlyMetadata: unknown;
  serverMetadata: unknown;
};
type MetadataField = keyof Metadata;

const FIELDS: { field: MetadataField; label: string; hint: string }[] = [
  { field: "clientMetadata", label: "Client metadata", hint: "Readable and writable by the app's client." },
  {
    field: "clientReadOnlyMetadata",
    label: "Client read-only metadata",
    hint: "Readable by the app, writable only by your server.",
  },
  { field: "serverMetadata", label: "Server metadata", hint: "Only your server sees it." },
];

/**
 * The three metadata editors users and teams share. `namePrefix` keeps the textareas' names distinct on pages
 * that show more than one owner's metadata (and gives the browser tests stable handles).
 */
export function MetadataCard(props: {
  owner: string;
  namePrefix?: string;
  value: Metadata;
  save: (update: Partial<Metadata>) => Promise<void>;
}) {
  const { value } = props;
  const name = (field: MetadataField) =>
    props.namePrefix ? `${props.namePrefix}${field[0]!.toUpperCase()}${field.slice(1)}` : field;
  return (
    <Card title="Metadata" description={`JSON stored with the ${props.owner}. Invalid JSON cannot be saved.`}>
      {/* Keyed by the stored values so that a save (or a reload) starts the editors from what was stored. */}
      <div
        className="grid3"
        key={JSON.stringify([value.clientMetadata, value.clientReadOnlyMetadata, value.serverMetadata])}
      >
        {FIELDS.map(({ field, label, hint }) => (
          <JsonEditor
            key={field}
            name={name(field)}
            label={label}
            hint={hint}
            value={value[field]}
            onSave={(saved) => props.save({ [field]: saved })}
          />
        ))}
      </div>
    </Card>
  );
}
