import { useState } from "react";
import { Field } from "../../ui/components.tsx";

/** The server takes up to 1,000,000 base64 characters, which is 750,000 bytes of image. */
const MAX_LOGO_BYTES = 750_000;
const ACCEPTED = "image/png,image/jpeg,image/gif,image/webp,image/avif";

/**
 * A project logo: an https URL, or a picked file sent as a data URL, which the server stores and answers with the
 * URL it is served from (the field then shows that URL once the project is read again).
 */
export function LogoField(props: {
  label: string;
  name: string;
  value: string;
  onChange: (value: string) => void;
  hint?: string;
}) {
  const [error, setError] = useState<string | null>(null);
  const picked = props.value.startsWith("data:");
  return (
    <div className="logo-field">
      <Field
        label={props.label}
        error={error}
        hint={picked ? "A new image is picked; Save uploads it." : props.hint}
      >
        <input
          type="url"
          name={props.name}
          value={picked ? "" : props.value}
          placeholder={picked ? "Picked image" : "https://"}
          onChange={(e) => {
            setError(null);
            props.onChange(e.target.value);
          }}
        />
      </Field>
      <div className="row">
        {props.value ? (
          <img className="logo-preview" src={props.value} alt={`${props.label}: preview`} />
        ) : null}
        <input
          type="file"
          name={`${props.name}File`}
          aria-label={`Upload ${props.label}`}
          accept={ACCEPTED}
          onChange={(e) => {
            const input = e.currentTarget;
            const file = input.files?.[0];
            input.value = "";
            if (!file) return;
            if (file.size > MAX_LOGO_BYTES) {
              setError(`The image is ${Math.ceil(file.size / 1000)} KB; the limit is 750 KB.`);
              return;
            }
            const reader = new FileReader();
            reader.onload = () => {
              setError(null);
              props.onChange(String(reader.result));
            };
            reader.onerror = () => setError("The file could not be read.");
            reader.readAsDataURL(file);
          }}
        />
      </div>
    </div>
  );
}
