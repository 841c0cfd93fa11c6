import type { AdminEmailTemplate, AdminEmailTheme } from "@gatehouse/js";
import { Button, buttonClass } from "@gatehouse/react/ui";
import { useState } from "react";
import { projectPath, useProjectContext } from "../../project-context.tsx";
import { Link, navigate } from "../../router.tsx";
import { AsyncCard } from "../../ui/async.tsx";
import { ActionButton, Badge, PageHead, Table } from "../../ui/components.tsx";
import { useAsync } from "../../ui/hooks.ts";
import { Icon } from "../../ui/icons.tsx";
import { Modal } from "../../ui/modal.tsx";
import { useToast } from "../../ui/toast.tsx";
import {
  BUILT_IN_TEMPLATE_IDS,
  BUILT_IN_THEME_IDS,
  describeEmailError,
  type EmailKind,
} from "./email-common.ts";
import { EmailEditorPage, SharedServerNotice } from "./email-editor.tsx";
import "./email-templates.css";
import { TextField } from "../../ui/fields.tsx";
import { usePageTitle } from "../../ui/page-title.ts";

/** `email-templates`, `email-templates/templates/<id>`, `email-templates/themes/<id>`. */
export function EmailTemplatesSection({ kind, id }: { kind?: string; id?: string }) {
  if ((kind === "templates" || kind === "themes") && id) {
    return <EmailEditorPage key={`${kind}/${id}`} kind={kind} id={id} />;
  }
  return <EmailTemplatesPage />;
}

export function editorPath(projectId: string, kind: EmailKind, id: string): string {
  return projectPath(projectId, `email-templates/${kind}/${encodeURIComponent(id)}`);
}

function themeLabel(template: AdminEmailTemplate, themes: AdminEmailTheme[] | undefined): string {
  if (template.themeId === false) return "No theme";
  if (template.themeId === null) return "Project default";
  return themes?.find((theme) => theme.id === template.themeId)?.displayName ?? "Unknown theme";
}

function EmailTemplatesPage() {
  const { app, project, refresh } = useProjectContext();
  usePageTitle("Email templates");
  const templates = useAsync(() => app.listEmailTemplates(), [app]);
  const themes = useAsync(() => app.listEmailThemes(), [app]);
  const [creating, setCreating] = useState<EmailKind | null>(null);
  const toast = useToast();
  const shared = project.config.emailConfig?.type !== "standard";
  const selectedThemeId = project.config.emailTheme;

  return (
    <>
      <PageHead
        title="Email templates"
        description="The emails your project sends, written in TSX with React Email, and the themes around them."
      />
      {shared ? <SharedServerNotice projectId={project.id} /> : null}
      <AsyncCard
        title="Templates"
        description="Each email Gatehouse sends, and the ones you add for your own sends."
        flush
        testId="templates"
        state={templates}
        rows={5}
        actions={
          <Button variant="secondary" small disabled={shared} onClick={() => setCreating("templates")}>
            <Icon name="plus" /> New template
          </Button>
        }
      >
        {(list) => (
          <Table testId="templates-table" columns={["Name", "Theme", ""]}>
            {list.map((template) => (
              <tr key={template.id}>
                <td>
                  <Link to={editorPath(project.id, "templates", template.id)}>{template.displayName}</Link>{" "}
                  {BUILT_IN_TEMPLATE_IDS.has(template.id) ? <Badge>Built-in</Badge> : null}
                </td>
                <td className="muted">{themeLabel(template, themes.data)}</td>
                <td style={{ textAlign: "right" }}>
                  <Link
                    className={buttonClass({ variant: "secondary", small: true })}
                    to={editorPath(project.id, "templates", template.id)}
                  >
                    {shared ? "Preview" : "Edit"}
                  </Link>
                </td>
              </tr>
            ))}
          </Table>
        )}
      </AsyncCard>
      <AsyncCard
        title="Themes"
        description="The frame around every email: layout, colours, logo. The selected theme is the project's default."
        flush
        testId="themes"
        state={themes}
        rows={3}
        actions={
          <Button variant="secondary" small onClick={() => setCreating("themes")}>
            <Icon name="plus" /> New theme
          </Button>
        }
      >
        {(list) => (
          <Table testId="themes-table" columns={["Name", "Default", ""]}>
            {list.map((theme) => (
              <tr key={theme.id} data-selected={theme.id === selectedThemeId ? "true" : undefined}>
                <td>
                  <Link to={editorPath(project.id, "themes", theme.id)}>{theme.displayName}</Link>{" "}
                  {BUILT_IN_THEME_IDS.has(theme.id) ? <Badge>Built-in</Badge> : null}
                </td>
                <td>
                  {theme.id === selectedThemeId ? (
                    <Badge tone="success">✓ Selected</Badge>
                  ) : (
                    <ActionButton
                      small
                      variant="ghost"
                      aria-label={`Use as default: ${theme.displayName}`}
                      success={`${theme.displayName} is now the default theme`}
                      onClick={async () => {
                        try {
                          await project.updateConfig({ "emails.selectedThemeId": theme.id });
                        } catch (error) {
                          throw new Error(describeEmailError(error, "theme"));
                        }
                        await refresh();
                      }}
                    >
                      Use as default
                    </ActionButton>
                  )}
                </td>
                <td style={{ textAlign: "right" }}>
                  <Link
                    className={buttonClass({ variant: "secondary", small: true })}
                    to={editorPath(project.id, "themes", theme.id)}
                  >
                    Edit
                  </Link>
                </td>
              </tr>
            ))}
          </Table>
        )}
      </AsyncCard>
      {creating ? (
        <CreateModal
          kind={creating}
          onClose={() => setCreating(null)}
          onCreate={async (name) => {
            try {
              const { id } =
                creating === "templates"
                  ? await app.createEmailTemplate(name)
                  : await app.createEmailTheme(name);
              toast.success(`${name} created`);
              navigate(editorPath(project.id, creating, id));
            } catch (error) {
              toast.error(
                new Error(describeEmailError(error, creating === "templates" ? "template" : "theme")),
              );
            }
          }}
        />
      ) : null}
    </>
  );
}

function CreateModal(props: {
  kind: EmailKind;
  onClose: () => void;
  onCreate: (name: string) => Promise<void>;
}) {
  const [name, setName] = useState("");
  const [busy, setBusy] = useState(false);
  const noun = props.kind === "templates" ? "template" : "theme";
  const submit = async () => {
    if (!name.trim()) return;
    setBusy(true);
    await props.onCreate(name.trim());
    setBusy(false);
  };
  return (
    <Modal
      title={`New ${noun}`}
      description={
        props.kind === "templates"
          ? "It starts from a small example with one variable; edit it on the next page."
          : "It starts from the Default Light theme; edit it on the next page."
      }
      onClose={() => !busy && props.onClose()}
      footer={
        <>
          <Button variant="secondary" onClick={props.onClose} disabled={busy}>
            Cancel
          </Button>
          <Button loading={busy} disabled={!name.trim()} onClick={submit}>
            Create {noun}
          </Button>
        </>
      }
    >
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void submit();
        }}
      >
        <TextField label="Name" name="emailItemName" value={name} onChange={setName} />
      </form>
    </Modal>
  );
}
