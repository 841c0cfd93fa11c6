import type { WebhookEndpoint, WebhookEndpointCreateOptions, WebhookEventTypeInfo } from "@gatehouse/js";
import { Button } from "@gatehouse/react/ui";
import { type FormEvent, useState } from "react";
import { CopyField, Toggle } from "../../ui/components.tsx";
import { TextField } from "../../ui/fields.tsx";
import { errorMessage } from "../../ui/hooks.ts";
import { Modal } from "../../ui/modal.tsx";

/** Adds an endpoint (no `endpoint`) or edits one. `onSave` throws to keep the dialog open with the error shown. */
export function EndpointFormModal(props: {
  endpoint?: WebhookEndpoint;
  eventTypes: WebhookEventTypeInfo[];
  onClose: () => void;
  onSave: (values: Required<WebhookEndpointCreateOptions>) => Promise<void>;
}) {
  const { endpoint } = props;
  const [url, setUrl] = useState(endpoint?.url ?? "");
  const [description, setDescription] = useState(endpoint?.description ?? "");
  const [allEvents, setAllEvents] = useState((endpoint?.eventTypes.length ?? 0) === 0);
  const [chosen, setChosen] = useState<Set<string>>(() => new Set(endpoint?.eventTypes ?? []));
  const [enabled, setEnabled] = useState(endpoint?.enabled ?? true);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const urlProblem = (() => {
    if (!url.trim()) return "Enter the URL that receives the events.";
    try {
      const parsed = new URL(url.trim());
      return parsed.protocol === "http:" || parsed.protocol === "https:"
        ? null
        : "The URL must start with https:// (or http://).";
    } catch {
      return "This is not a complete URL, e.g. https://example.com/webhooks.";
    }
  })();
  const filterProblem = !allEvents && chosen.size === 0 ? "Choose at least one event type." : null;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (urlProblem || filterProblem || busy) return;
    setBusy(true);
    setError(null);
    try {
      await props.onSave({
        url: url.trim(),
        description: description.trim(),
        eventTypes: allEvents ? [] : props.eventTypes.map((type) => type.name).filter((n) => chosen.has(n)),
        enabled,
      });
    } catch (caught) {
      setError(errorMessage(caught));
      setBusy(false);
    }
  };

  const toggle = (name: string, on: boolean) => {
    const next = new Set(chosen);
    if (on) next.add(name);
    else next.delete(name);
    setChosen(next);
  };

  return (
    <Modal
      wide
      title={endpoint ? "Edit endpoint" : "Add endpoint"}
      description="Gatehouse sends each event as a signed POST with a JSON body to this URL."
      onClose={() => !busy && props.onClose()}
      footer={
        <>
          <Button variant="secondary" onClick={props.onClose} disabled={busy}>
            Cancel
          </Button>
          <Button
            type="submit"
            form="webhook-endpoint-form"
            loading={busy}
            disabled={Boolean(urlProblem || filterProblem)}
          >
            {endpoint ? "Save endpoint" : "Add endpoint"}
          </Button>
        </>
      }
    >
      <form id="webhook-endpoint-form" className="stack" onSubmit={submit}>
        {error ? (
          <div className="alert danger" role="alert" data-testid="endpoint-form-error">
            {error}
          </div>
        ) : null}
        <TextField
          label="Endpoint URL"
          error={url && urlProblem ? urlProblem : null}
          type="url"
          name="endpointUrl"
          placeholder="https://example.com/webhooks/gatehouse"
          value={url}
          onChange={setUrl}
          autoFocus
        />
        <TextField
          label="Description"
          hint="Optional, for you: what receives these events."
          name="endpointDescription"
          placeholder="Billing service"
          value={description}
          onChange={setDescription}
        />
        <fieldset className="boxed-fieldset webhook-events" aria-label="Events to send">
          <legend>Events to send</legend>
          <label className="checkbox">
            <input type="radio" name="eventFilter" checked={allEvents} onChange={() => setAllEvents(true)} />
            All events, including ones added later
          </label>
          <label className="checkbox">
            <input
              type="radio"
              name="eventFilter"
              checked={!allEvents}
              onChange={() => setAllEvents(false)}
            />
            Only the events chosen below
          </label>
          {allEvents ? null : (
            <div className="webhook-event-grid">
              {props.eventTypes.map((type) => (
                <label key={type.name} className="checkbox" title={type.description}>
                  <input
                    type="checkbox"
                    name={`event-${type.name}`}
                    checked={chosen.has(type.name)}
                    onChange={(e) => toggle(type.name, e.target.checked)}
                  />
                  <span className="mono">{type.name}</span>
                </label>
              ))}
            </div>
          )}
          {filterProblem ? <span className="field-error">{filterProblem}</span> : null}
        </fieldset>
        <Toggle
          label="Enabled"
          name="endpointEnabled"
          description="A disabled endpoint gets no new events; its deliveries stay listed."
          checked={enabled}
          onChange={setEnabled}
        />
      </form>
    </Modal>
  );
}

/** A signing secret, shown this once (after adding an endpoint, or rotating its secret). */
export function SecretModal(props: { title: string; secret: string; onClose: () => void }) {
  return (
    <Modal
      wide
      title={props.title}
      description="Copy it now: it is not shown again. Your receiver checks each request's signature with it."
      onClose={props.onClose}
      footer={<Button onClick={props.onClose}>I have copied it</Button>}
    >
      <div className="stack" data-testid="webhook-secret">
        <CopyField value={props.secret} label="signing-secret" />
        <pre className="snippet">{`import { verifyWebhook } from "@gatehouse/js";

// rawBody: the request body exactly as received
const event = await verifyWebhook(process.env.WEBHOOK_SECRET, rawBody, request.headers);`}</pre>
      </div>
    </Modal>
  );
}
