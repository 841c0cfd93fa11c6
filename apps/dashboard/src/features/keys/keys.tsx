import type { InternalApiKey, InternalApiKeyFirstView } from "@gatehouse/js";
import { Button, formatDay } from "@gatehouse/react/ui";
import { useState } from "react";
import { useProjectContext } from "../../project-context.tsx";
import { KeysOnce } from "../../shared/keys-once.tsx";
import { AsyncCard } from "../../ui/async.tsx";
import { ActionButton, Badge, Empty, Field, PageHead, Table } from "../../ui/components.tsx";
import { Checkbox, TextField, useFieldState } from "../../ui/fields.tsx";
import { useAsync } from "../../ui/hooks.ts";
import { Icon } from "../../ui/icons.tsx";
import { ConfirmButton, Modal } from "../../ui/modal.tsx";
import { usePageTitle } from "../../ui/page-title.ts";

const EXPIRY_CHOICES = [
  ["1 day", 1],
  ["7 days", 7],
  ["30 days", 30],
  ["90 days", 90],
  ["1 year", 365],
  ["Never (100 years)", 36500],
] as const;

function KeyStatus({ apiKey }: { apiKey: InternalApiKey }) {
  const reason = apiKey.whyInvalid();
  if (reason === "manually-revoked") return <Badge tone="danger">Revoked</Badge>;
  if (reason === "expired") return <Badge>Expired</Badge>;
  return <Badge tone="success">Active</Badge>;
}

export function KeysPage() {
  const { app, project } = useProjectContext();
  usePageTitle("API keys");
  const keys = useAsync(() => app.listInternalApiKeys(), [app]);
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<InternalApiKeyFirstView | null>(null);
  const lastFour = (value: { lastFour: string } | null) => (value ? `…${value.lastFour}` : "—");
  return (
    <>
      <PageHead
        title="API keys"
        description="Key sets your apps use to talk to Gatehouse. The secret values are shown once, at creation."
        actions={
          <Button onClick={() => setCreating(true)}>
            <Icon name="plus" /> Create key set
          </Button>
        }
      />
      <AsyncCard
        flush
        state={keys}
        rows={4}
        empty={
          <Empty icon={<Icon name="key" size={22} />} title="No key sets">
            Create one to connect an app.
          </Empty>
        }
      >
        {(all) => (
          <Table
            testId="keys-table"
            columns={["Description", "Client key", "Server key", "Admin key", "Expires", "Status", ""]}
          >
            {all.map((key) => (
              <tr key={key.id}>
                <td>
                  <strong>{key.description || "Untitled"}</strong>
                  <div className="muted small">created {formatDay(key.createdAt)}</div>
                </td>
                <td className="mono">{lastFour(key.publishableClientKey)}</td>
                <td className="mono">{lastFour(key.secretServerKey)}</td>
                <td className="mono">{lastFour(key.superSecretAdminKey)}</td>
                <td className="muted">{formatDay(key.expiresAt)}</td>
                <td>
                  <KeyStatus apiKey={key} />
                </td>
                <td style={{ textAlign: "right" }}>
                  {key.isValid() ? (
                    <ConfirmButton
                      small
                      label="Revoke"
                      title="Revoke this key set?"
                      description="Apps using these keys stop working immediately. This cannot be undone."
                      confirmLabel="Revoke keys"
                      success="Key set revoked"
                      onConfirm={async () => {
                        await key.revoke();
                        await keys.reload();
                      }}
                    />
                  ) : null}
                </td>
              </tr>
            ))}
          </Table>
        )}
      </AsyncCard>
      {creating ? (
        <CreateKeysModal
          onClose={() => setCreating(false)}
          onCreated={async (view) => {
            setCreating(false);
            setCreated(view);
            await keys.reload();
          }}
        />
      ) : null}
      {created ? (
        <Modal
          wide
          title="Your new keys"
          onClose={() => setCreated(null)}
          footer={<Button onClick={() => setCreated(null)}>I have copied them</Button>}
        >
          <KeysOnce projectId={project.id} keys={created} />
        </Modal>
      ) : null}
    </>
  );
}

function CreateKeysModal(props: {
  onClose: () => void;
  onCreated: (view: InternalApiKeyFirstView) => Promise<void>;
}) {
  const { app } = useProjectContext();
  const description = useFieldState("");
  const [days, setDays] = useState(365);
  const [client, setClient] = useState(true);
  const [server, setServer] = useState(true);
  const [admin, setAdmin] = useState(false);
  return (
    <Modal
      title="Create key set"
      onClose={props.onClose}
      footer={
        <>
          <Button variant="secondary" onClick={props.onClose}>
            Cancel
          </Button>
          <ActionButton
            disabled={!description.value.trim() || !(client || server || admin)}
            onClick={async () =>
              props.onCreated(
                await app.createInternalApiKey({
                  description: description.value.trim(),
                  expiresAt: new Date(Date.now() + days * 24 * 3600 * 1000),
                  hasPublishableClientKey: client,
                  hasSecretServerKey: server,
                  hasSuperSecretAdminKey: admin,
                }),
              )
            }
          >
            Create keys
          </ActionButton>
        </>
      }
    >
      <TextField
        label="Description"
        name="keyDescription"
        placeholder="Production web app"
        {...description}
      />
      <Field label="Expires in">
        <select name="expiry" value={days} onChange={(e) => setDays(Number(e.target.value))}>
          {EXPIRY_CHOICES.map(([label, value]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      </Field>
      <div className="stack">
        <Checkbox checked={client} onChange={setClient}>
          Publishable client key
        </Checkbox>
        <Checkbox checked={server} onChange={setServer}>
          Secret server key
        </Checkbox>
        <Checkbox name="adminKey" checked={admin} onChange={setAdmin}>
          {" "}
          Super secret admin key (full control of the project)
        </Checkbox>
      </div>
    </Modal>
  );
}
