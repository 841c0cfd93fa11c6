import type { WebhookDelivery, WebhookDeliveryAttempt } from "@gatehouse/js";
import { Button, formatDate } from "@gatehouse/react/ui";
import { Fragment, type ReactNode, useEffect, useState } from "react";
import { AsyncCard } from "../../ui/async.tsx";
import { ActionButton, Badge, Empty, Table } from "../../ui/components.tsx";
import type { AsyncState } from "../../ui/hooks.ts";
import { Icon } from "../../ui/icons.tsx";

type Tone = "accent" | "success" | "danger" | "warning" | undefined;

/** A delivery's status in words, with its badge colour. */
export function deliveryStatusWords(delivery: WebhookDelivery): { label: string; tone: Tone } {
  switch (delivery.status) {
    case "succeeded":
      return { label: "Succeeded", tone: "success" };
    case "failed":
      return { label: "Failed", tone: "danger" };
    case "sending":
      return { label: "Sending", tone: "accent" };
    case "pending":
      return delivery.attempts > 0
        ? { label: "Failed, retrying", tone: "warning" }
        : { label: "Queued", tone: "accent" };
  }
}

/** One attempt's outcome in a sentence. */
export function attemptWords(attempt: WebhookDeliveryAttempt): string {
  if (attempt.statusCode === null) return `No answer: ${attempt.response || "the request failed."}`;
  const ok = attempt.statusCode >= 200 && attempt.statusCode < 300;
  return `${ok ? "Answered" : "Refused with"} HTTP ${attempt.statusCode} after ${attempt.durationMs} ms`;
}

const isOnItsWay = (delivery: WebhookDelivery) =>
  delivery.status === "pending" || delivery.status === "sending";

/**
 * While a delivery is queued or sending, the list is read again every two seconds, so that its outcome shows up
 * without a reload. Retries due later (minutes, hours) are not waited for.
 */
function useFollowDeliveries(state: AsyncState<WebhookDelivery[]>) {
  const soon = (state.data ?? []).some(
    (delivery) =>
      delivery.status === "sending" ||
      (delivery.status === "pending" &&
        (delivery.nextAttemptAt === null || delivery.nextAttemptAt.getTime() - Date.now() < 10_000)),
  );
  const { reload, loading, error } = state;
  useEffect(() => {
    if (!soon || loading || error) return;
    const timer = setTimeout(() => void reload(), 2000);
    return () => clearTimeout(timer);
  }, [soon, loading, error, reload]);
}

export function DeliveriesCard(props: {
  state: AsyncState<WebhookDelivery[]>;
  onResend: (delivery: WebhookDelivery) => Promise<void>;
  actions?: ReactNode;
}) {
  const { state } = props;
  const [open, setOpen] = useState<string | null>(null);
  useFollowDeliveries(state);
  return (
    <AsyncCard
      flush
      title="Recent deliveries"
      description="The newest 50 messages to this endpoint, with each attempt and what the endpoint answered."
      actions={
        <div className="row">
          {props.actions}
          <Button small variant="ghost" onClick={() => void state.reload()} aria-label="Refresh deliveries">
            Refresh
          </Button>
        </div>
      }
      state={state}
      rows={3}
      testId="webhook-deliveries"
      empty={
        <Empty icon={<Icon name="hook" size={22} />} title="No deliveries yet">
          Events sent to this endpoint are listed here. Send a test event to try it.
        </Empty>
      }
    >
      {(deliveries) => (
        <Table testId="webhook-deliveries-table">
          <thead>
            <tr>
              <th>Event</th>
              <th>Status</th>
              <th>Attempts</th>
              <th>Last answer</th>
              <th>Created</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {deliveries.map((delivery) => {
              const status = deliveryStatusWords(delivery);
              const expanded = open === delivery.id;
              return (
                <Fragment key={delivery.id}>
                  <tr data-delivery-id={delivery.id} data-status={delivery.status}>
                    <td className="mono">{delivery.eventType}</td>
                    <td>
                      <Badge tone={status.tone}>{status.label}</Badge>
                      {delivery.status === "pending" && delivery.nextAttemptAt ? (
                        <div className="muted small">next try {formatDate(delivery.nextAttemptAt)}</div>
                      ) : null}
                    </td>
                    <td>{delivery.attempts}</td>
                    <td className="mono">{delivery.lastStatusCode ?? "—"}</td>
                    <td className="muted">{formatDate(delivery.createdAt)}</td>
                    <td>
                      <div className="row end">
                        <Button
                          small
                          variant="ghost"
                          aria-expanded={expanded}
                          onClick={() => setOpen(expanded ? null : delivery.id)}
                        >
                          {expanded ? "Hide attempts" : "Attempts"}
                        </Button>
                        {isOnItsWay(delivery) ? null : (
                          <ActionButton
                            variant="secondary"
                            small
                            onClick={() => props.onResend(delivery)}
                            success="Delivery queued again"
                          >
                            Resend
                          </ActionButton>
                        )}
                      </div>
                    </td>
                  </tr>
                  {expanded ? (
                    <tr className="webhook-attempts-row">
                      <td colSpan={6}>
                        <AttemptLog delivery={delivery} />
                      </td>
                    </tr>
                  ) : null}
                </Fragment>
              );
            })}
          </tbody>
        </Table>
      )}
    </AsyncCard>
  );
}

function AttemptLog({ delivery }: { delivery: WebhookDelivery }) {
  if (delivery.attemptLog.length === 0) {
    return <p className="muted small">Not tried yet: the first attempt is on its way.</p>;
  }
  return (
    <ol className="plain-list webhook-attempts" data-testid="webhook-attempt-log">
      <li className="muted small">
        Message id <span className="mono">{delivery.eventId}</span> (the same on every attempt)
      </li>
      {delivery.attemptLog.map((attempt) => {
        const ok = attempt.statusCode !== null && attempt.statusCode >= 200 && attempt.statusCode < 300;
        return (
          <li key={attempt.attempt} data-attempt={attempt.attempt}>
            <div className="row">
              <Badge tone={ok ? "success" : "danger"}>Attempt {attempt.attempt}</Badge>
              <span>{attemptWords(attempt)}</span>
              <span className="muted small">{formatDate(attempt.at)}</span>
            </div>
            {attempt.response && attempt.statusCode !== null ? (
              <pre className="snippet" data-testid="attempt-response">
                {attempt.response}
              </pre>
            ) : null}
          </li>
        );
      })}
    </ol>
  );
}
