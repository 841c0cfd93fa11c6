import { Button } from "@gatehouse/react/ui";
/**
 * The OAuth providers card of the Auth methods page. It reads and writes the project config itself
 * (`auth.oauth.providers.<id>`), one provider entry at a time, because the legacy project settings have no words for
 * what is set here beyond keys: an OpenID issuer or endpoint overrides (self-hosted GitLab, GitHub Enterprise),
 * Apple's signing key and app bundle ids, and generic OpenID Connect providers.
 */
import { useState } from "react";
import { useProjectContext } from "../../project-context.tsx";
import { CUSTOM, providerName } from "../../shared/oauth-provider-names.ts";
import { AsyncCard } from "../../ui/async.tsx";
import { Badge, Field, Table } from "../../ui/components.tsx";
import { useAsync } from "../../ui/hooks.ts";
import { useToast } from "../../ui/toast.tsx";
import { type Editing, PROVIDERS, type ProviderEntry, ProviderModal } from "./oauth-provider-modal.tsx";

function status(entry: ProviderEntry | undefined) {
  if (!entry) return <Badge>Off</Badge>;
  if (entry.type === CUSTOM) return <Badge tone="accent">OpenID Connect</Badge>;
  if (entry.isShared) return <Badge tone="warning">Shared keys</Badge>;
  return (
    <Badge tone="success">{entry.issuerUrl || entry.authorizationEndpoint ? "Own server" : "Own keys"}</Badge>
  );
}

export function OAuthProviders() {
  const { project, refresh } = useProjectContext();
  const providers = useAsync(async () => {
    const config = (await project.getConfig()) as {
      auth: { oauth: { providers: Record<string, ProviderEntry> } };
    };
    return config.auth.oauth.providers;
  }, [project]);
  const [editing, setEditing] = useState<Editing | null>(null);
  const save = async (key: string, entry: ProviderEntry | null) => {
    await project.updateConfig({ [`auth.oauth.providers.${key}`]: entry });
    await Promise.all([refresh(), providers.reload()]);
    setEditing(null);
  };
  return (
    <AsyncCard
      state={providers}
      title="OAuth providers"
      description="Sign-in with other accounts. Shared keys are for development only."
      actions={
        <Button
          variant="secondary"
          small
          onClick={() =>
            setEditing({ key: "", entry: { type: CUSTOM, isShared: false }, enabled: false, isNew: true })
          }
        >
          Add OpenID Connect provider
        </Button>
      }
      after={<MergeStrategy />}
    >
      {(all) => {
        const others = Object.keys(all)
          .filter((key) => !PROVIDERS.includes(key))
          .sort();
        const row = (key: string, entry: ProviderEntry | undefined, name: string) => (
          <tr key={key}>
            <td style={{ fontWeight: 550 }}>{name}</td>
            <td>{status(entry)}</td>
            <td style={{ textAlign: "right" }}>
              <Button
                variant="secondary"
                small
                onClick={() =>
                  setEditing({
                    key,
                    entry: entry ?? { type: key, isShared: true },
                    enabled: entry !== undefined,
                    isNew: false,
                  })
                }
              >
                Configure
              </Button>
            </td>
          </tr>
        );
        return (
          <>
            <Table testId="oauth-providers">
              <tbody>
                {PROVIDERS.map((id) => row(id, all[id], providerName(id)))}
                {others.map((key) =>
                  row(key, all[key], `${all[key]!.displayName ?? providerName(all[key]!.type)} (${key})`),
                )}
              </tbody>
            </Table>
            {editing ? (
              <ProviderModal
                editing={editing}
                taken={Object.keys(all)}
                onClose={() => setEditing(null)}
                onSave={save}
              />
            ) : null}
          </>
        );
      }}
    </AsyncCard>
  );
}

function MergeStrategy() {
  const { project, refresh } = useProjectContext();
  const toast = useToast();
  return (
    <Field label="Account merge strategy" hint="When an OAuth sign-in uses the email of an existing user.">
      <select
        name="mergeStrategy"
        value={project.config.oauthAccountMergeStrategy}
        onChange={async (e) => {
          try {
            await project.update({ config: { oauthAccountMergeStrategy: e.target.value as "link_method" } });
            await refresh();
            toast.success("Merge strategy saved");
          } catch (error) {
            toast.error(error);
          }
        }}
      >
        <option value="link_method">Link to the existing user</option>
        <option value="raise_error">Refuse the sign-in</option>
        <option value="allow_duplicates">Create a separate user</option>
      </select>
    </Field>
  );
}
