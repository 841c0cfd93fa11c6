import type { WebhookEndpoint, WebhookPortal } from "@gatehouse/js";
import { Button, formatDate, LabelValues } from "@gatehouse/react/ui";
import { ActionButton, Badge, Card } from "../../ui/components.tsx";
import { useAsync } from "../../ui/hooks.ts";
import { ConfirmButton } from "../../ui/modal.tsx";
import { DeliveriesCard } from "./webhooks-deliveries.tsx";

/** The events an endpoint gets, in words. */
export function eventFilterWords(endpoint: WebhookEndpoint): string {
  if (endpoint.eventTypes.length === 0) return "All events";
  return endpoint.eventTypes.join(", ");
}

export function EnabledBadge({ enabled }: { enabled: boolean }) {
  return enabled ? <Badge tone="success">Enabled</Badge> : <Badge>Disabled</Badge>;
}

/** One endpoint: what it is, what can be done to it, and its recent deliveries. */
export function EndpointPanel(props: {
  portal: WebhookPortal;
  endpoint: WebhookEndpoint;
  onEdit: () => void;
  onChanged: () => Promise<void>;
  onDeleted: () => Promise<void>;
  onSecret: (title: string, secret: string) => void;
}) {
  const { portal, endpoint } = props;
  const deliveries = useAsync(() => portal.listDeliveries(endpoint.id), [portal, endpoint.id]);
  return (
    <>
      <Card
        testId="webhook-endpoint"
        title={<span className="webhook-url">{endpoint.url}</span>}
        description={endpoint.description || "No description"}
        actions={
          <div className="row">
            <Button variant="secondary" small onClick={props.onEdit}>
              Edit
            </Button>
            <ActionButton
              variant="secondary"
              small
              onClick={async () => {
                await portal.updateEndpoint(endpoint.id, { enabled: !endpoint.enabled });
                await props.onChanged();
              }}
              success={endpoint.enabled ? "Endpoint disabled" : "Endpoint enabled"}
            >
              {endpoint.enabled ? "Disable" : "Enable"}
            </ActionButton>
            <ConfirmButton
              small
              variant="primary"
              label="Rotate secret"
              title="Rotate the signing secret?"
              description="Messages are signed with a new secret from now on. Update your receiver with it: requests signed with the old one stop coming."
              onConfirm={async () => {
                const { secret } = await portal.rotateEndpointSecret(endpoint.id);
                props.onSecret("The new signing secret", secret);
              }}
            />
            <ConfirmButton
              small
              label="Delete"
              title="Delete this endpoint?"
              description={
                <>
                  <span className="mono">{endpoint.url}</span> gets no more events, and its deliveries are
                  deleted with it. This cannot be undone.
                </>
              }
              confirmLabel="Delete endpoint"
              success="Endpoint deleted"
              onConfirm={async () => {
                await portal.deleteEndpoint(endpoint.id);
                await props.onDeleted();
              }}
            />
          </div>
        }
      >
        <LabelValues
          rows={[
            { label: "Events", value: eventFilterWords(endpoint), testId: "endpoint-events" },
            { label: "Status", value: <EnabledBadge enabled={endpoint.enabled} /> },
            { label: "Added", value: formatDate(endpoint.createdAt) },
            {
              label: "Signing secret",
              value: <>Shown once when it was made. Rotate it to get a new one.</>,
              className: "muted",
            },
          ]}
        />
      </Card>
      <DeliveriesCard
        state={deliveries}
        actions={
          <ActionButton
            small
            success="Test event queued"
            onClick={async () => {
              await portal.sendTestEvent(endpoint.id);
              await deliveries.reload();
            }}
          >
            Send test event
          </ActionButton>
        }
        onResend={async (delivery) => {
          await portal.resendDelivery(delivery.id);
          await deliveries.reload();
        }}
      />
    </>
  );
}
