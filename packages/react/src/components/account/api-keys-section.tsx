import type { ApiKey } from "@gatehouse/js";
import { type FormEvent, useState } from "react";
import { useStrings } from "../../context.ts";
import { useApiKeys, useGatehouseApp, useUser } from "../../hooks.ts";
import { SectionBoundary } from "../../internal/boundary.tsx";
import { invalidateLists } from "../../internal/caches.ts";
import { TextField } from "../../internal/fields.tsx";
import { Alert, Button, formatDate, Loading, Section } from "../../internal/ui.tsx";
import { useAction, useFormAction } from "../../internal/use-action.ts";
import { required } from "../../internal/validation.ts";
import { List, ListRow } from "../../ui/list.tsx";

const EXPIRY_CHOICES = [7, 30, 90, 365, 0] as const;
const DAY_MS = 24 * 60 * 60 * 1000;

export function ApiKeysSection() {
  const s = useStrings();
  return (
    <Section id="api-keys" title={s.sectionApiKeys} description={s.apiKeysDescription}>
      <CreateApiKeyForm />
      <SectionBoundary fallback={<Loading />}>
        <ApiKeyList />
      </SectionBoundary>
    </Section>
  );
}

function CreateApiKeyForm() {
  const s = useStrings();
  const app = useGatehouseApp();
  const user = useUser({ or: "throw", includeRestricted: true });
  const [description, setDescription] = useState("");
  const [days, setDays] = useState<number>(90);
  const [missing, setMissing] = useState<string>();
  const [created, setCreated] = useState<string | null>(null);
  const [copied, setCopied] = useState(false);
  const action = useFormAction();
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const error = required(description, s);
    setMissing(error);
    action.reset();
    if (error) return;
    void action.run(async () => {
      const key = await user.createApiKey({
        description: description.trim(),
        expiresAt: days === 0 ? null : new Date(Date.now() + days * DAY_MS),
      });
      invalidateLists(app, "apiKeys");
      setCreated(key.value);
      setCopied(false);
      setDescription("");
    });
  };
  return (
    <form className="gh-stack-sm" onSubmit={onSubmit} noValidate>
      {created ? (
        <Alert tone="success">
          <div className="gh-stack-sm">
            <span>{s.apiKeyCreated}</span>
            <code className="gh-code-block" data-testid="new-api-key">
              {created}
            </code>
            <div>
              <Button
                small
                variant="secondary"
                onClick={() => {
                  void navigator.clipboard?.writeText(created).then(() => setCopied(true));
                }}
              >
                {copied ? s.copied : s.copy}
              </Button>
            </div>
          </div>
        </Alert>
      ) : null}
      <div className="gh-inline-form">
        <TextField
          label={s.apiKeyDescription}
          name="apiKeyDescription"
          placeholder={s.apiKeyDescriptionPlaceholder}
          value={description}
          onValueChange={setDescription}
          error={missing ?? action.error}
          maxLength={200}
        />
        <div className="gh-field" style={{ flex: "0 0 auto", minWidth: 0 }}>
          <label className="gh-label" htmlFor="gh-api-key-expiry">
            {s.apiKeyExpires}
          </label>
          <select
            id="gh-api-key-expiry"
            className="gh-select"
            value={days}
            onChange={(event) => setDays(Number(event.target.value))}
          >
            {EXPIRY_CHOICES.map((choice) => (
              <option key={choice} value={choice}>
                {choice === 0 ? s.apiKeyNeverExpires : s.apiKeyExpiresIn(choice)}
              </option>
            ))}
          </select>
        </div>
        <Button type="submit" loading={action.pending} style={{ marginTop: 25 }}>
          {s.createApiKey}
        </Button>
      </div>
    </form>
  );
}

function keyState(key: ApiKey, s: ReturnType<typeof useStrings>) {
  const reason = key.whyInvalid();
  if (reason === "manually-revoked")
    return <span className="gh-badge gh-badge-danger">{s.apiKeyRevoked}</span>;
  if (reason === "expired") return <span className="gh-badge">{s.apiKeyExpired}</span>;
  return null;
}

function ApiKeyList() {
  const s = useStrings();
  const app = useGatehouseApp();
  const keys = useApiKeys();
  const [run, pending] = useAction();
  if (keys.length === 0) return <p className="gh-empty">{s.noApiKeys}</p>;
  return (
    <List label={s.sectionApiKeys}>
      {keys.map((key) => (
        <ListRow
          key={key.id}
          title={
            <>
              {key.description}
              {keyState(key, s)}
            </>
          }
          meta={
            <>
              {typeof key.value === "string" ? "" : s.apiKeyEndsWith(key.value.lastFour)} ·{" "}
              {formatDate(key.createdAt)}
              {key.expiresAt ? ` · ${s.apiKeyExpires} ${formatDate(key.expiresAt)}` : ""}
            </>
          }
          actions={
            key.isValid() ? (
              <Button
                small
                variant="danger-outline"
                disabled={pending}
                onClick={() =>
                  run(async () => {
                    await key.revoke();
                    invalidateLists(app, "apiKeys");
                  })
                }
              >
                {s.apiKeyRevoke}
              </Button>
            ) : null
          }
        />
      ))}
    </List>
  );
}
