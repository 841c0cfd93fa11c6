import type { AdminProject } from "@gatehouse/js";
import { useState } from "react";
import { useProjectContext } from "../project-context.tsx";
import {
  ActionButton,
  Badge,
  Button,
  Card,
  Field,
  Modal,
  PageHead,
  Table,
  Toggle,
} from "../ui/components.tsx";
import { useToast } from "../ui/toast.tsx";

/** Providers as their owners spell them. */
const PROVIDER_NAMES: Record<string, string> = {
  github: "GitHub",
  gitlab: "GitLab",
  linkedin: "LinkedIn",
  x: "X (Twitter)",
};
function providerName(id: string): string {
  return PROVIDER_NAMES[id] ?? `${id[0]!.toUpperCase()}${id.slice(1)}`;
}

type Flag =
  | "signUpEnabled"
  | "credentialEnabled"
  | "magicLinkEnabled"
  | "passkeyEnabled"
  | "clientTeamCreationEnabled"
  | "clientUserDeletionEnabled"
  | "allowUserApiKeys"
  | "allowTeamApiKeys"
  | "createTeamOnSignUp";

const SIGN_IN: [Flag, string, string][] = [
  ["signUpEnabled", "Sign-up", "New users can create accounts. Off: only you can create users."],
  ["credentialEnabled", "Email and password", "Users sign in with a password."],
  ["magicLinkEnabled", "Magic link and one-time code", "Users sign in with a link or code sent by email."],
  ["passkeyEnabled", "Passkeys", "Users sign in with a passkey (WebAuthn)."],
];
const USERS: [Flag, string, string][] = [
  ["clientTeamCreationEnabled", "Users can create teams", "From your app, without your server."],
  ["clientUserDeletionEnabled", "Users can delete their account", "From their account settings."],
  ["allowUserApiKeys", "User API keys", "Users can create API keys of their own."],
  ["allowTeamApiKeys", "Team API keys", "Teams can have API keys."],
  ["createTeamOnSignUp", "Create a personal team on sign-up", "Every new user gets a team of their own."],
];

// Not exported by @gatehouse/js; read off the project type instead.
type AdminOAuthProviderConfig = AdminProject["config"]["oauthProviders"][number];

const PROVIDERS = [
  "google",
  "github",
  "microsoft",
  "facebook",
  "apple",
  "discord",
  "gitlab",
  "bitbucket",
  "linkedin",
  "x",
  "spotify",
  "twitch",
];

export function AuthMethodsPage() {
  const { project, refresh } = useProjectContext();
  const toast = useToast();
  const config = project.config;
  const setFlag = async (flag: Flag, value: boolean) => {
    try {
      await project.update({ config: { [flag]: value } });
      await refresh();
      toast.success("Saved");
    } catch (error) {
      toast.error(error);
    }
  };
  const flags = (list: [Flag, string, string][]) =>
    list.map(([flag, label, description]) => (
      <Toggle
        key={flag}
        name={flag}
        label={label}
        description={description}
        checked={config[flag]}
        onChange={(value) => setFlag(flag, value)}
      />
    ));
  return (
    <>
      <PageHead title="Auth methods" description="How users sign up and sign in to your app." />
      <div className="grid2">
        <Card title="Sign-in methods">{flags(SIGN_IN)}</Card>
        <Card title="Users and teams">{flags(USERS)}</Card>
      </div>
      <OAuthProviders />
    </>
  );
}

function OAuthProviders() {
  const { project, refresh } = useProjectContext();
  const [editing, setEditing] = useState<AdminOAuthProviderConfig | null>(null);
  const toast = useToast();
  const providers = project.config.oauthProviders;
  const save = async (next: AdminOAuthProviderConfig[]) => {
    await project.update({ config: { oauthProviders: next } });
    await refresh();
  };
  return (
    <Card
      title="OAuth providers"
      description="Sign-in with other accounts. Shared keys are for development only."
    >
      <Table testId="oauth-providers">
        <tbody>
          {PROVIDERS.map((id) => {
            const provider = providers.find((p) => p.id === id);
            return (
              <tr key={id}>
                <td style={{ fontWeight: 550 }}>{providerName(id)}</td>
                <td>
                  {provider ? (
                    provider.type === "shared" ? (
                      <Badge tone="warning">Shared keys</Badge>
                    ) : (
                      <Badge tone="success">Own keys</Badge>
                    )
                  ) : (
                    <Badge>Off</Badge>
                  )}
                </td>
                <td style={{ textAlign: "right" }}>
                  <Button size="sm" onClick={() => setEditing(provider ?? { id, type: "shared" })}>
                    Configure
                  </Button>
                </td>
              </tr>
            );
          })}
        </tbody>
      </Table>
      <Field label="Account merge strategy" hint="When an OAuth sign-in uses the email of an existing user.">
        <select
          name="mergeStrategy"
          value={project.config.oauthAccountMergeStrategy}
          onChange={async (e) => {
            try {
              await project.update({
                config: { oauthAccountMergeStrategy: e.target.value as "link_method" },
              });
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
      {editing ? (
        <ProviderModal
          provider={editing}
          enabled={providers.some((p) => p.id === editing.id)}
          onClose={() => setEditing(null)}
          onSave={async (provider) => {
            await save([...providers.filter((p) => p.id !== editing.id), ...(provider ? [provider] : [])]);
            setEditing(null);
          }}
        />
      ) : null}
    </Card>
  );
}

function ProviderModal(props: {
  provider: AdminOAuthProviderConfig;
  enabled: boolean;
  onClose: () => void;
  onSave: (provider: AdminOAuthProviderConfig | null) => Promise<void>;
}) {
  const [type, setType] = useState(props.provider.type);
  const [clientId, setClientId] = useState(props.provider.clientId ?? "");
  const [clientSecret, setClientSecret] = useState(props.provider.clientSecret ?? "");
  const [facebookConfigId, setFacebookConfigId] = useState(props.provider.facebookConfigId ?? "");
  const [tenantId, setTenantId] = useState(props.provider.microsoftTenantId ?? "");
  const id = props.provider.id;
  const standardIncomplete = type === "standard" && (!clientId.trim() || !clientSecret.trim());
  return (
    <Modal
      title={`${providerName(id)} sign-in`}
      onClose={props.onClose}
      footer={
        <>
          {props.enabled ? (
            <ActionButton variant="danger" success="Provider turned off" onClick={() => props.onSave(null)}>
              Turn off
            </ActionButton>
          ) : null}
          <span style={{ flex: 1 }} />
          <Button onClick={props.onClose}>Cancel</Button>
          <ActionButton
            variant="primary"
            disabled={standardIncomplete}
            success="Provider saved"
            onClick={() =>
              props.onSave({
                id,
                type,
                ...(type === "standard"
                  ? { clientId: clientId.trim(), clientSecret: clientSecret.trim() }
                  : {}),
                ...(id === "facebook" && facebookConfigId.trim()
                  ? { facebookConfigId: facebookConfigId.trim() }
                  : {}),
                ...(id === "microsoft" && tenantId.trim() ? { microsoftTenantId: tenantId.trim() } : {}),
              })
            }
          >
            {props.enabled ? "Save" : "Turn on"}
          </ActionButton>
        </>
      }
    >
      <Field label="Keys">
        <select
          name="providerType"
          value={type}
          onChange={(e) => setType(e.target.value as "shared" | "standard")}
        >
          <option value="shared">Shared development keys</option>
          <option value="standard">My own OAuth app</option>
        </select>
      </Field>
      {type === "standard" ? (
        <>
          <Field label="Client ID">
            <input
              type="text"
              name="clientId"
              value={clientId}
              onChange={(e) => setClientId(e.target.value)}
            />
          </Field>
          <Field label="Client secret">
            <input
              type="password"
              name="clientSecret"
              value={clientSecret}
              onChange={(e) => setClientSecret(e.target.value)}
            />
          </Field>
          {id === "facebook" ? (
            <Field label="Facebook configuration ID" hint="For Facebook Login for Business.">
              <input
                type="text"
                name="facebookConfigId"
                value={facebookConfigId}
                onChange={(e) => setFacebookConfigId(e.target.value)}
              />
            </Field>
          ) : null}
          {id === "microsoft" ? (
            <Field label="Microsoft tenant ID" hint="Leave empty for any Microsoft account.">
              <input
                type="text"
                name="microsoftTenantId"
                value={tenantId}
                onChange={(e) => setTenantId(e.target.value)}
              />
            </Field>
          ) : null}
        </>
      ) : (
        <div className="alert info">
          Shared keys show Gatehouse's name on the consent screen. Use your own in production.
        </div>
      )}
    </Modal>
  );
}
