import type { InternalApiKeyFirstView } from "@gatehouse/js";
import { CopyField, Field } from "../ui/components.tsx";
import { EnvSnippets } from "./env-snippets.tsx";
import "./keys-once.css";

/** A new key set, shown the one time its secrets can be: as a .env per framework, then each key on its own. */
export function KeysOnce(props: { projectId: string; keys: InternalApiKeyFirstView }) {
  const { keys } = props;
  return (
    <div className="stack" data-testid="keys-once" style={{ gap: 14 }}>
      <div className="alert warning">
        Copy these keys now: the secret values are shown only this once. Gatehouse keeps only a hash of them.
      </div>
      <EnvSnippets
        values={{
          projectId: props.projectId,
          publishable: keys.publishableClientKey ?? null,
          secret: keys.secretServerKey ?? null,
          apiUrl: window.location.origin,
        }}
      />
      <details className="keys-details" open={Boolean(keys.superSecretAdminKey)}>
        <summary>Each key on its own</summary>
        <div className="stack" style={{ gap: 14, marginTop: 12 }}>
          <Field label="Project ID">
            <CopyField value={props.projectId} label="project-id" />
          </Field>
          {keys.publishableClientKey ? (
            <Field label="Publishable client key">
              <CopyField value={keys.publishableClientKey} label="publishable-client-key" />
            </Field>
          ) : null}
          {keys.secretServerKey ? (
            <Field label="Secret server key">
              <CopyField value={keys.secretServerKey} label="secret-server-key" />
            </Field>
          ) : null}
          {keys.superSecretAdminKey ? (
            <Field label="Super secret admin key">
              <CopyField value={keys.superSecretAdminKey} label="super-secret-admin-key" />
            </Field>
          ) : null}
        </div>
      </details>
    </div>
  );
}
