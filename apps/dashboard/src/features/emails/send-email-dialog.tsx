import type { AdminEmailTemplate, EmailPreview, GatehouseAdminApp, ServerUser } from "@gatehouse/js";
import { Avatar, avatarColor, Button, buttonClass } from "@gatehouse/react/ui";
import { isKnownError } from "@gatehouse/shared";
import { useMemo, useState } from "react";
import { useProjectContext } from "../../project-context.tsx";
import { Field } from "../../ui/components.tsx";
import { Select, TextAreaField, TextField, useFieldState } from "../../ui/fields.tsx";
import { errorMessage, useAsync } from "../../ui/hooks.ts";
import { Modal } from "../../ui/modal.tsx";
import { useToast } from "../../ui/toast.tsx";
import { UserPicker } from "../../ui/user-picker.tsx";
import { OwnServerNeeded, SendErrorText } from "./sent-email-status.tsx";

/** How the server wraps raw HTML (PROTOCOL-EXTRA §1.2), so that the preview shows what users will get. */
const HTML_TEMPLATE_SOURCE = `import { type } from "arktype";

export const variablesSchema = type({ html: "string" });

export function EmailTemplate({ variables }: { variables: typeof variablesSchema.infer }) {
  return <div dangerouslySetInnerHTML={{ __html: variables.html }} />;
}
`;

/** Users counted for the confirmation, a page of 100 at a time; past this the count says "more than". */
const COUNT_LIMIT = 1000;

async function countAllUsers(app: GatehouseAdminApp): Promise<{ count: number; more: boolean }> {
  let count = 0;
  let cursor: string | undefined;
  do {
    const page = await app.listUsers({
      limit: 100,
      includeAnonymous: true,
      includeRestricted: true,
      ...(cursor ? { cursor } : {}),
    });
    count += page.length;
    cursor = page.nextCursor ?? undefined;
  } while (cursor && count < COUNT_LIMIT);
  return { count, more: cursor !== undefined };
}

type Content = { kind: "html" } | { kind: "template"; id: string };
type Category = "" | "Transactional" | "Marketing";

/**
 * Compose, then review: who gets it (chosen users or all), subject, HTML or one of the project's templates with
 * variables (JSON), category; the review renders the email and names how many users get it before anything goes.
 */
export function SendEmailDialog(props: { onClose: () => void; onSent: () => Promise<void> }) {
  const { app, project } = useProjectContext();
  const toast = useToast();
  const shared = project.config.emailConfig?.type !== "standard";
  const [audience, setAudience] = useState<"some" | "all">("some");
  const [users, setUsers] = useState<ServerUser[]>([]);
  const subject = useFieldState("");
  const [content, setContent] = useState<Content>({ kind: "html" });
  const [html, setHtml] = useState("<p>Hello!</p>");
  const [variablesText, setVariablesText] = useState("{}");
  const [category, setCategory] = useState<Category>("Transactional");
  const [step, setStep] = useState<"compose" | "review">("compose");
  const [preview, setPreview] = useState<EmailPreview | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const templates = useAsync<AdminEmailTemplate[]>(() => app.listEmailTemplates(), [app]);
  const everyone = useAsync(
    () => (audience === "all" ? countAllUsers(app) : Promise.resolve(null)),
    [app, audience],
  );
  const picked = useMemo(() => new Set(users.map((u) => u.id)), [users]);

  const variables = useMemo((): Record<string, unknown> | string => {
    if (content.kind !== "template") return {};
    try {
      const parsed: unknown = JSON.parse(variablesText || "{}");
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
        return 'Variables must be a JSON object, like {"name": "Ada"}.';
      }
      return parsed as Record<string, unknown>;
    } catch (caught) {
      return `Variables are not valid JSON: ${errorMessage(caught)}`;
    }
  }, [content, variablesText]);
  const variablesError = typeof variables === "string" ? variables : null;
  const recipientCount = audience === "all" ? (everyone.data?.count ?? null) : users.length;
  const countWords =
    audience === "all"
      ? everyone.data
        ? `all ${everyone.data.more ? "more than " : ""}${everyone.data.count} user${everyone.data.count === 1 ? "" : "s"}`
        : "all users"
      : `${users.length} user${users.length === 1 ? "" : "s"}`;
  const ready =
    !shared &&
    (audience === "all" || users.length > 0) &&
    !variablesError &&
    (content.kind === "template" || html.trim() !== "");

  const review = async () => {
    setBusy(true);
    setError(null);
    setPreview(null);
    try {
      const rendered = await app.renderEmailPreview(
        content.kind === "html"
          ? { templateTsxSource: HTML_TEMPLATE_SOURCE, variables: { html } }
          : { templateId: content.id, variables: variables as Record<string, unknown> },
      );
      setPreview(rendered);
      setStep("review");
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };

  const send = async () => {
    setBusy(true);
    setError(null);
    try {
      const common = {
        ...(subject.value.trim() ? { subject: subject.value.trim() } : {}),
        ...(category ? { notificationCategoryName: category } : {}),
      };
      const who = audience === "all" ? { allUsers: true as const } : { userIds: users.map((u) => u.id) };
      const result =
        content.kind === "html"
          ? await app.sendEmail({ ...who, ...common, html })
          : await app.sendEmail({
              ...who,
              ...common,
              templateId: content.id,
              variables: variables as Record<string, unknown>,
            });
      toast.success(
        `Email queued for ${result.userIds.length} user${result.userIds.length === 1 ? "" : "s"}`,
      );
      await props.onSent();
      props.onClose();
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };

  const errorAlert = error ? (
    <div className="alert danger" role="alert" data-testid="send-email-error">
      <div>
        {isKnownError(error, "EMAIL_RENDERING_ERROR") ? (
          <>
            The email does not render:{" "}
            {String((error as { details?: { error?: unknown } }).details?.error ?? errorMessage(error))}
          </>
        ) : (
          <SendErrorText error={error} projectId={project.id} />
        )}
      </div>
    </div>
  ) : null;

  if (step === "review") {
    const shownSubject = subject.value.trim() || preview?.subject || "(no subject)";
    return (
      <Modal
        wide
        title="Review and send"
        description={`“${shownSubject}” to ${countWords}.`}
        onClose={() => !busy && props.onClose()}
        footer={
          <>
            <Button variant="secondary" onClick={() => setStep("compose")} disabled={busy}>
              Back
            </Button>
            <Button loading={busy} disabled={recipientCount === 0} onClick={send}>
              Send to {countWords}
            </Button>
          </>
        }
      >
        <p data-testid="send-confirmation">
          This emails <strong>{countWords}</strong>
          {category ? ` as ${category.toLowerCase()} email` : ""}.{" "}
          {category === "Marketing"
            ? "Users who turned marketing email off are skipped; the others get an unsubscribe link."
            : ""}
        </p>
        {errorAlert}
        <iframe
          title="Email preview"
          data-testid="send-email-preview"
          sandbox=""
          srcDoc={preview?.html ?? ""}
          style={{
            width: "100%",
            height: 380,
            border: "1px solid var(--border)",
            borderRadius: 8,
            background: "#fff",
          }}
        />
        <p className="muted small">Previewed with a sample user; each user gets their own name.</p>
      </Modal>
    );
  }

  return (
    <Modal
      wide
      title="Send email to users"
      description="The email is queued now and delivered by the project's email server."
      onClose={() => !busy && props.onClose()}
      footer={
        <>
          <Button variant="secondary" onClick={props.onClose} disabled={busy}>
            Cancel
          </Button>
          <Button loading={busy} disabled={!ready} onClick={review}>
            Review
          </Button>
        </>
      }
    >
      {shared ? <SendErrorNotice projectId={project.id} /> : null}
      {errorAlert}
      <Field label="Recipients">
        <Select name="audience" value={audience} onChange={setAudience}>
          <option value="some">Chosen users</option>
          <option value="all">All users</option>
        </Select>
      </Field>
      {audience === "some" ? (
        <div className="stack" style={{ marginBottom: 14 }}>
          <UserPicker name="recipientSearch" exclude={picked} onPick={(user) => setUsers([...users, user])} />
          <div className="row" data-testid="chosen-recipients" style={{ flexWrap: "wrap" }}>
            {users.map((user) => (
              <span key={user.id} className="badge" style={{ gap: 6 }}>
                <Avatar name={user.displayName ?? user.primaryEmail} color={avatarColor(user.id)} />
                {user.primaryEmail ?? user.displayName ?? user.id}
                <button
                  type="button"
                  className={buttonClass({ variant: "ghost", small: true })}
                  aria-label={`Remove ${user.primaryEmail ?? user.id}`}
                  onClick={() => setUsers(users.filter((u) => u.id !== user.id))}
                >
                  ×
                </button>
              </span>
            ))}
            {users.length === 0 ? <span className="muted small">Find users above to add them.</span> : null}
          </div>
        </div>
      ) : null}
      <TextField
        label="Subject"
        hint={content.kind === "template" ? "Leave empty to use the template's subject." : undefined}
        name="subject"
        {...subject}
      />
      <Field label="Content">
        <select
          name="content"
          value={content.kind === "html" ? "" : content.id}
          onChange={(e) => {
            setContent(e.target.value ? { kind: "template", id: e.target.value } : { kind: "html" });
            setCategory(e.target.value ? "" : "Transactional");
          }}
        >
          <option value="">HTML</option>
          {(templates.data ?? []).map((template) => (
            <option key={template.id} value={template.id}>
              Template: {template.displayName}
            </option>
          ))}
        </select>
      </Field>
      {content.kind === "html" ? (
        <TextAreaField label="HTML" name="html" rows={6} className="mono" value={html} onChange={setHtml} />
      ) : (
        <TextAreaField
          label="Variables (JSON)"
          error={variablesError}
          name="variables"
          rows={4}
          className="mono"
          value={variablesText}
          onChange={setVariablesText}
        />
      )}
      <Field label="Category" hint="Users can turn marketing email off; transactional email always goes out.">
        <Select name="category" value={category} onChange={setCategory}>
          {content.kind === "template" ? <option value="">As the template says</option> : null}
          <option value="Transactional">Transactional</option>
          <option value="Marketing">Marketing</option>
        </Select>
      </Field>
    </Modal>
  );
}

function SendErrorNotice({ projectId }: { projectId: string }) {
  return (
    <div className="alert warning" data-testid="shared-server-notice">
      <div>
        <OwnServerNeeded projectId={projectId} />
      </div>
    </div>
  );
}
