import type { WebhookEndpoint, WebhookPortal, WebhookPortalToken } from "@gatehouse/js";
import { Button } from "@gatehouse/react/ui";
import { useState } from "react";
import { useProjectContext } from "../../project-context.tsx";
import { AsyncCard } from "../../ui/async.tsx";
import { ActionButton, CopyField, Empty, ErrorAlert, PageHead, Table } from "../../ui/components.tsx";
import { useAsync } from "../../ui/hooks.ts";
import { Icon } from "../../ui/icons.tsx";
import { Modal } from "../../ui/modal.tsx";
import { useToast } from "../../ui/toast.tsx";
import "./webhooks.css";
import { usePageTitle } from "../../ui/page-title.ts";
import { EnabledBadge, EndpointPanel, eventFilterWords } from "./webhooks-endpoint.tsx";
import { EndpointFormModal, SecretModal } from "./webhooks-form.tsx";

/** The dashboard's Webhooks page: the portal with the owner's admin access, and a link to share it. */
export function WebhooksPage() {
  const { app } = useProjectContext();
  usePageTitle("Webhooks");
  const [shared, setShared] = useState<WebhookPortalToken | null>(null);
  return (
    <>
      <PageHead
        title="Webhooks"
        description="Gatehouse sends your endpoints a signed POST when users, teams and permissions change."
        actions={
          <ActionButton variant="secondary" onClick={async () => setShared(await app.getSvixToken())}>
            Share portal link
          </ActionButton>
        }
      />
      <WebhookPortalView portal={app.webhookPortal} />
      {shared ? (
        <Modal
          wide
          title="Webhook portal link"
          description="Anyone with this link can manage this project's webhook endpoints for 24 hours, without a dashboard account. Share it only with people you trust."
          onClose={() => setShared(null)}
          footer={<Button onClick={() => setShared(null)}>Done</Button>}
        >
          <CopyField value={shared.url} label="portal-link" />
        </Modal>
      ) : null}
    </>
  );
}

type Editing = { kind: "new" } | { kind: "edit"; endpoint: WebhookEndpoint };

/**
 * The portal itself, on any portal API (the admin app's, or one opened with a portal token): the endpoints, and the
 * selected one with its deliveries.
 */
export function WebhookPortalView({ portal }: { portal: WebhookPortal }) {
  const toast = useToast();
  const endpoints = useAsync(() => portal.listEndpoints(), [portal]);
  const eventTypes = useAsync(() => portal.listEventTypes(), [portal]);
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const [editing, setEditing] = useState<Editing | null>(null);
  const [secret, setSecret] = useState<{ title: string; secret: string } | null>(null);
  const selected =
    endpoints.data?.find((endpoint) => endpoint.id === selectedId) ??
    (endpoints.data?.length === 1 ? endpoints.data[0] : undefined);

  const addButton = (
    <Button small onClick={() => setEditing({ kind: "new" })} disabled={!eventTypes.data}>
      <Icon name="plus" /> Add endpoint
    </Button>
  );
  return (
    <>
      <AsyncCard
        flush
        title="Endpoints"
        description="Where events are sent. Choose one to see its deliveries."
        actions={addButton}
        state={endpoints}
        rows={3}
        testId="webhook-endpoints"
        empty={
          <Empty icon={<Icon name="hook" size={22} />} title="No endpoints yet" action={addButton}>
            Add the URL of a server that should hear about sign-ups, profile changes, teams and permissions.
          </Empty>
        }
      >
        {(all) => (
          <Table testId="webhook-endpoints-table">
            <thead>
              <tr>
                <th>URL</th>
                <th>Events</th>
                <th>Status</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {all.map((endpoint) => (
                <tr
                  key={endpoint.id}
                  data-endpoint-id={endpoint.id}
                  className={endpoint.id === selected?.id ? "selected" : undefined}
                >
                  <td>
                    <strong className="webhook-url">{endpoint.url}</strong>
                    {endpoint.description ? <div className="muted small">{endpoint.description}</div> : null}
                  </td>
                  <td className="small">{eventFilterWords(endpoint)}</td>
                  <td>
                    <EnabledBadge enabled={endpoint.enabled} />
                  </td>
                  <td style={{ textAlign: "right" }}>
                    <Button
                      variant="secondary"
                      small
                      aria-pressed={endpoint.id === selected?.id}
                      aria-label={`Open ${endpoint.url}`}
                      onClick={() => setSelectedId(endpoint.id)}
                    >
                      Open
                    </Button>
                  </td>
                </tr>
              ))}
            </tbody>
          </Table>
        )}
      </AsyncCard>
      {eventTypes.error ? <ErrorAlert error={eventTypes.error} retry={eventTypes.reload} /> : null}
      {selected ? (
        <EndpointPanel
          key={selected.id}
          portal={portal}
          endpoint={selected}
          onEdit={() => setEditing({ kind: "edit", endpoint: selected })}
          onChanged={endpoints.reload}
          onDeleted={async () => {
            setSelectedId(null);
            await endpoints.reload();
          }}
          onSecret={(title, value) => setSecret({ title, secret: value })}
        />
      ) : null}
      {editing && eventTypes.data ? (
        <EndpointFormModal
          endpoint={editing.kind === "edit" ? editing.endpoint : undefined}
          eventTypes={eventTypes.data}
          onClose={() => setEditing(null)}
          onSave={async (values) => {
            if (editing.kind === "edit") {
              await portal.updateEndpoint(editing.endpoint.id, values);
              toast.success("Endpoint saved");
            } else {
              const created = await portal.createEndpoint(values);
              setSelectedId(created.id);
              setSecret({ title: "Endpoint added: its signing secret", secret: created.secret });
            }
            setEditing(null);
            await endpoints.reload();
          }}
        />
      ) : null}
      {secret ? (
        <SecretModal title={secret.title} secret={secret.secret} onClose={() => setSecret(null)} />
      ) : null}
    </>
  );
}
