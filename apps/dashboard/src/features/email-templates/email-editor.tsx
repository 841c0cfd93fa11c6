import type { AdminEmailTheme, EmailPreviewOptions, EmailThemeChoice } from "@gatehouse/js";
import { useState } from "react";
import { projectPath, useProjectContext } from "../../project-context.tsx";
import { Link, navigate } from "../../router.tsx";
import { DetailPage } from "../../ui/async.tsx";
import { CodeEditor } from "../../ui/code-editor.tsx";
import { ActionButton, Badge, Card, Field, PageHead } from "../../ui/components.tsx";
import { looksLikeEmail } from "../../ui/errors.ts";
import { Select, TextAreaField, TextField } from "../../ui/fields.tsx";
import { useAsync } from "../../ui/hooks.ts";
import { parseJson } from "../../ui/json-editor.tsx";
import { ConfirmButton } from "../../ui/modal.tsx";
import { usePageTitle } from "../../ui/page-title.ts";
import {
  BUILT_IN_TEMPLATE_IDS,
  BUILT_IN_THEME_IDS,
  describeEmailError,
  type EmailKind,
  THEME_PREVIEW_TEMPLATE_ID,
} from "./email-common.ts";
import { EmailPreviewCard } from "./email-preview.tsx";

/** What the editor edits: a template (with its theme choice) or a theme. */
type Editable = { id: string; displayName: string; tsxSource: string; themeId?: EmailThemeChoice };

/** An error in words for a toast or a confirmation dialog. */
const worded = (noun: string) => (error: unknown) => {
  throw new Error(describeEmailError(error, noun));
};

export function EmailEditorPage({ kind, id }: { kind: EmailKind; id: string }) {
  const { app, project } = useProjectContext();
  usePageTitle(kind === "themes" ? "Email theme" : "Email template");
  const noun = kind === "templates" ? "template" : "theme";
  const crumb = <Link to={projectPath(project.id, "email-templates")}>Email templates</Link>;
  return (
    <DetailPage
      noun={noun}
      crumb={crumb}
      deps={[app, kind, id]}
      load={async (): Promise<Editable | null> => {
        if (kind === "templates") return (await app.listEmailTemplates()).find((t) => t.id === id) ?? null;
        try {
          return await app.getEmailTheme(id);
        } catch (error) {
          if ((error as { status?: number }).status === 404) return null;
          throw error;
        }
      }}
    >
      {(item) => <Editor kind={kind} item={item} />}
    </DetailPage>
  );
}

function Editor({ kind, item }: { kind: EmailKind; item: Editable }) {
  const { app, project } = useProjectContext();
  const themes = useAsync(() => app.listEmailThemes(), [app]);
  const isTemplate = kind === "templates";
  const noun = isTemplate ? "template" : "theme";
  const builtIn = (isTemplate ? BUILT_IN_TEMPLATE_IDS : BUILT_IN_THEME_IDS).has(item.id);
  const locked = isTemplate && project.config.emailConfig?.type !== "standard";
  const selectedThemeId = project.config.emailTheme;

  const [saved, setSaved] = useState({ source: item.tsxSource, themeId: item.themeId ?? null });
  const [source, setSource] = useState(item.tsxSource);
  const [themeId, setThemeId] = useState<EmailThemeChoice>(item.themeId ?? null);
  const [previewTheme, setPreviewTheme] = useState<string>("own");
  const [variablesText, setVariablesText] = useState("");
  const [problemLine, setProblemLine] = useState<number | null>(null);
  const variables = parseJson(variablesText, { object: true });
  const dirty = source !== saved.source || (isTemplate && themeId !== saved.themeId);

  const request: EmailPreviewOptions = isTemplate
    ? {
        templateTsxSource: source,
        themeId: previewTheme === "own" ? themeId : previewTheme === "none" ? false : previewTheme,
        ...(variables.error === null && variables.value !== null
          ? { variables: variables.value as Record<string, unknown> }
          : {}),
      }
    : { templateId: THEME_PREVIEW_TEMPLATE_ID, themeTsxSource: source };

  const backToList = () => navigate(projectPath(project.id, "email-templates"));
  const themeName = (choice: EmailThemeChoice) =>
    choice === false
      ? "no theme"
      : (themes.data?.find((t) => t.id === (choice ?? selectedThemeId))?.displayName ?? "the default theme");

  return (
    <>
      <PageHead
        crumb={<Link to={projectPath(project.id, "email-templates")}>Email templates</Link>}
        title={
          <span className="row" style={{ gap: 10 }}>
            {item.displayName} {builtIn ? <Badge>Built-in</Badge> : null}
            {dirty ? (
              <span data-testid="unsaved">
                <Badge tone="warning">Unsaved changes</Badge>
              </span>
            ) : null}
          </span>
        }
        description={
          isTemplate
            ? "TSX with React Email. Export EmailTemplate (with a <Subject> and a <NotificationCategory>) and, optionally, variablesSchema."
            : "TSX with React Email. Export EmailTheme, which wraps each email's content."
        }
        actions={
          <>
            {locked ? null : builtIn ? (
              <ConfirmButton
                label="Reset to default"
                variant="primary"
                title={`Reset ${item.displayName}?`}
                description={`Its source goes back to the one Gatehouse ships. Your edits of this ${noun} are lost.`}
                success={`${item.displayName} reset to default`}
                onConfirm={async () => {
                  const reset = isTemplate
                    ? await app.resetEmailTemplate(item.id).catch(worded(noun))
                    : await app.resetEmailTheme(item.id).catch(worded(noun));
                  setSource(reset.tsxSource);
                  setSaved((before) => ({ ...before, source: reset.tsxSource }));
                }}
              />
            ) : (
              <DeleteButton item={item} kind={kind} onDeleted={backToList} />
            )}
            <ActionButton
              disabled={!dirty || locked}
              success={`${item.displayName} saved`}
              onClick={async () => {
                if (isTemplate) await app.updateEmailTemplate(item.id, source, themeId).catch(worded(noun));
                else await app.updateEmailTheme(item.id, source).catch(worded(noun));
                setSaved({ source, themeId });
              }}
            >
              Save
            </ActionButton>
          </>
        }
      />
      {locked ? <SharedServerNotice projectId={project.id} /> : null}
      <div className="email-editor">
        <div className="stack">
          <Card title="Source" testId="source-card">
            <div className="stack">
              {isTemplate ? (
                <Field label="Theme" hint="The frame this email is sent in.">
                  <select
                    name="templateTheme"
                    value={themeId === null ? "default" : themeId === false ? "none" : themeId}
                    onChange={(event) => {
                      const value = event.target.value;
                      setThemeId(value === "default" ? null : value === "none" ? false : value);
                    }}
                  >
                    <option value="default">Project default ({themeName(null)})</option>
                    {(themes.data ?? []).map((theme) => (
                      <option key={theme.id} value={theme.id}>
                        {theme.displayName}
                      </option>
                    ))}
                    <option value="none">No theme</option>
                  </select>
                </Field>
              ) : null}
              <CodeEditor
                label={`${item.displayName} TSX source`}
                value={source}
                onChange={setSource}
                errorLine={problemLine}
              />
            </div>
          </Card>
          {isTemplate ? (
            <Card
              title="Preview variables"
              description="A JSON object laid over the template's PreviewVariables, for the preview only."
            >
              <TextAreaField
                label="Variables (JSON object)"
                error={variables.error}
                name="previewVariables"
                rows={4}
                spellCheck={false}
                className={variables.error ? "invalid" : ""}
                placeholder='{ "teamDisplayName": "Design Team" }'
                value={variablesText}
                onChange={setVariablesText}
              />
            </Card>
          ) : null}
          {isTemplate && !locked ? (
            <SendTestCard
              send={(recipientEmail) =>
                app
                  .sendEmailTemplateTest(item.id, {
                    recipientEmail,
                    tsxSource: source,
                    themeId: request.themeId ?? null,
                    ...(request.variables ? { variables: request.variables } : {}),
                  })
                  .catch(worded(noun))
              }
            />
          ) : null}
        </div>
        <EmailPreviewCard
          noun={noun}
          request={request}
          onProblemLine={setProblemLine}
          controls={
            isTemplate ? (
              <PreviewThemePicker
                value={previewTheme}
                onChange={setPreviewTheme}
                themes={themes.data}
                ownLabel={`This template's theme (${themeName(themeId)})`}
              />
            ) : (
              <p className="muted small" style={{ margin: 0 }}>
                Shown around the Email Verification template.
              </p>
            )
          }
        />
      </div>
    </>
  );
}

/** The notice of a project on the shared email server, which only sends the built-in templates. */
export function SharedServerNotice({ projectId }: { projectId: string }) {
  return (
    <div className="alert info email-notice" data-testid="shared-server-notice">
      <div>
        <strong>Your project sends with the shared email server,</strong> which only sends Gatehouse's
        built-in templates: you can preview them, but changes cannot be saved. Set up your own SMTP server on
        the <Link to={projectPath(projectId, "email")}>Email page</Link> to edit templates. Themes stay
        editable.
      </div>
    </div>
  );
}

function PreviewThemePicker(props: {
  value: string;
  onChange: (value: string) => void;
  themes: AdminEmailTheme[] | undefined;
  ownLabel: string;
}) {
  return (
    <Field label="Preview in">
      <Select name="previewTheme" value={props.value} onChange={props.onChange}>
        <option value="own">{props.ownLabel}</option>
        {(props.themes ?? []).map((theme) => (
          <option key={theme.id} value={theme.id}>
            {theme.displayName}
          </option>
        ))}
        <option value="none">No theme</option>
      </Select>
    </Field>
  );
}

function DeleteButton(props: { item: Editable; kind: EmailKind; onDeleted: () => void }) {
  const { app, project } = useProjectContext();
  const noun = props.kind === "templates" ? "template" : "theme";
  if (props.kind === "themes" && project.config.emailTheme === props.item.id) {
    return <span className="muted small">The selected theme cannot be deleted.</span>;
  }
  return (
    <ConfirmButton
      label="Delete"
      title={`Delete ${props.item.displayName}?`}
      description={
        props.kind === "templates"
          ? "Sends that name this template will fail. This cannot be undone."
          : "Templates that name this theme will need another one. This cannot be undone."
      }
      confirmLabel={`Delete ${noun}`}
      typeToConfirm={props.item.displayName}
      success={`${props.item.displayName} deleted`}
      onConfirm={async () => {
        if (props.kind === "templates") await app.deleteEmailTemplate(props.item.id).catch(worded(noun));
        else await app.deleteEmailTheme(props.item.id).catch(worded(noun));
        props.onDeleted();
      }}
    />
  );
}

/** Sends what the preview shows to one address, through the project's own email server. */
function SendTestCard({ send }: { send: (recipientEmail: string) => Promise<unknown> }) {
  const [recipient, setRecipient] = useState("");
  const looksLikeAddress = looksLikeEmail(recipient);
  return (
    <Card
      title="Send a test"
      description="The email as the preview shows it, unsaved changes included, marked [Test] in its subject."
      footer={
        <ActionButton
          variant="secondary"
          disabled={!looksLikeAddress}
          success={`Test sent to ${recipient.trim()}`}
          onClick={() => send(recipient.trim())}
        >
          Send test
        </ActionButton>
      }
    >
      <TextField
        label="Recipient"
        name="testRecipient"
        type="email"
        autoComplete="email"
        placeholder="you@example.com"
        value={recipient}
        onChange={setRecipient}
      />
    </Card>
  );
}
