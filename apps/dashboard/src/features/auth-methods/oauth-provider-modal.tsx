import { Button } from "@gatehouse/react/ui";
/** The dialog that turns one OAuth provider on, changes it, or turns it off (oauth-providers.tsx lists them). */
import { useState } from "react";
import { CUSTOM, providerName } from "../../shared/oauth-provider-names.ts";
import { ActionButton, CopyField, Field } from "../../ui/components.tsx";
import { Select } from "../../ui/fields.tsx";
import { Modal } from "../../ui/modal.tsx";

/** A provider entry of the rendered config (server: config/schema.ts). */
export type ProviderEntry = {
  type: string;
  isShared: boolean;
  clientId?: string;
  clientSecret?: string;
  facebookConfigId?: string;
  microsoftTenantId?: string;
  appleBundles?: Record<string, { bundleId: string }>;
  appleTeamId?: string;
  appleKeyId?: string;
  applePrivateKey?: string;
  issuerUrl?: string;
  authorizationEndpoint?: string;
  tokenEndpoint?: string;
  userInfoEndpoint?: string;
  scope?: string;
  displayName?: string;
  allowSignIn?: boolean;
  allowConnectedAccounts?: boolean;
};

export const PROVIDERS = [
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

/** Config record keys (server: config/keys.ts). */
const PROVIDER_KEY = /^[A-Za-z0-9_:$-]+$/;

export type Editing = { key: string; entry: ProviderEntry; enabled: boolean; isNew: boolean };

const text = (value: string) => value.trim() || undefined;

/** The entry's plain text settings, each an input of the form (empty when unset). */
const TEXT_FIELDS = [
  "clientId",
  "clientSecret",
  "facebookConfigId",
  "microsoftTenantId",
  "issuerUrl",
  "authorizationEndpoint",
  "tokenEndpoint",
  "userInfoEndpoint",
  "scope",
  "displayName",
  "appleTeamId",
  "appleKeyId",
] as const satisfies readonly (keyof ProviderEntry)[];
type TextField = (typeof TEXT_FIELDS)[number];

export function ProviderModal(props: {
  editing: Editing;
  taken: string[];
  onClose: () => void;
  onSave: (key: string, entry: ProviderEntry | null) => Promise<void>;
}) {
  const { entry, enabled, isNew } = props.editing;
  const type = entry.type;
  const custom = type === CUSTOM;
  const [key, setKey] = useState(props.editing.key);
  const [keys, setKeys] = useState(entry.isShared && !custom ? "shared" : "standard");
  const [form, setForm] = useState({
    ...(Object.fromEntries(TEXT_FIELDS.map((field) => [field, entry[field] ?? ""])) as Record<
      TextField,
      string
    >),
    // A saved key is never shown again; an empty field keeps it.
    applePrivateKey: "",
    bundleIds: Object.values(entry.appleBundles ?? {})
      .map((bundle) => bundle.bundleId)
      .join(", "),
  });
  const hasEndpoints = Boolean(entry.authorizationEndpoint || entry.tokenEndpoint || entry.userInfoEndpoint);
  const [showEndpoints, setShowEndpoints] = useState(hasEndpoints);
  const set = (field: keyof typeof form) => (event: { target: { value: string } }) =>
    setForm({ ...form, [field]: event.target.value });
  const input = (field: keyof typeof form, kind: "text" | "password" | "url" = "text") => (
    <input type={kind} name={field} value={form[field]} onChange={set(field)} />
  );

  const own = keys === "standard";
  const appleKey = type === "apple" && Boolean(form.appleTeamId.trim() || form.appleKeyId.trim());
  const privateKey = text(form.applePrivateKey) ?? (appleKey ? entry.applePrivateKey : undefined);
  const keyProblem = !isNew
    ? null
    : !PROVIDER_KEY.test(key)
      ? "Letters, digits and _ : $ - only."
      : props.taken.includes(key) || PROVIDERS.includes(key)
        ? "A provider with this id exists already."
        : null;
  const endpointsComplete = Boolean(
    form.issuerUrl.trim() ||
      (form.authorizationEndpoint.trim() && form.tokenEndpoint.trim() && form.userInfoEndpoint.trim()),
  );
  const incomplete =
    (own && (!form.clientId.trim() || (!form.clientSecret.trim() && !appleKey))) ||
    (custom && (!endpointsComplete || Boolean(keyProblem)));

  const build = (): ProviderEntry => {
    const bundleIds = form.bundleIds.split(/[\s,]+/).filter(Boolean);
    const next: ProviderEntry = {
      type,
      isShared: !own,
      allowSignIn: entry.allowSignIn ?? true,
      allowConnectedAccounts: entry.allowConnectedAccounts ?? true,
    };
    if (type === "facebook") next.facebookConfigId = text(form.facebookConfigId);
    if (type === "microsoft") next.microsoftTenantId = text(form.microsoftTenantId);
    if (type === "apple" && bundleIds.length > 0) {
      next.appleBundles = Object.fromEntries(
        bundleIds.map((bundleId, i) => [`bundle-${i + 1}`, { bundleId }]),
      );
    }
    if (!own) return next;
    Object.assign(next, {
      clientId: text(form.clientId),
      clientSecret: text(form.clientSecret),
      issuerUrl: text(form.issuerUrl),
      ...(showEndpoints
        ? {
            authorizationEndpoint: text(form.authorizationEndpoint),
            tokenEndpoint: text(form.tokenEndpoint),
            userInfoEndpoint: text(form.userInfoEndpoint),
          }
        : {}),
    });
    if (custom) Object.assign(next, { scope: text(form.scope), displayName: text(form.displayName) });
    if (appleKey) {
      Object.assign(next, {
        appleTeamId: text(form.appleTeamId),
        appleKeyId: text(form.appleKeyId),
        applePrivateKey: privateKey,
      });
    }
    return JSON.parse(JSON.stringify(next)) as ProviderEntry;
  };

  const issuerField =
    type === "gitlab" ? (
      <Field
        label="GitLab instance URL"
        hint="For self-hosted GitLab, e.g. https://gitlab.example.com. Empty for gitlab.com."
      >
        {input("issuerUrl", "url")}
      </Field>
    ) : (
      <Field
        label={custom ? "Issuer URL" : "OpenID issuer URL"}
        hint={
          custom
            ? "Its endpoints are read from <issuer>/.well-known/openid-configuration."
            : `Optional: sign in through this OpenID issuer instead of ${providerName(type)}'s own endpoints.`
        }
      >
        {input("issuerUrl", "url")}
      </Field>
    );

  return (
    <Modal
      title={custom ? "OpenID Connect sign-in" : `${providerName(type)} sign-in`}
      description={
        custom ? "Any provider that speaks OpenID Connect: Okta, Auth0, Keycloak, Entra ID…" : undefined
      }
      onClose={props.onClose}
      footer={
        <>
          {enabled ? (
            <ActionButton
              variant="danger-outline"
              success="Provider turned off"
              onClick={() => props.onSave(props.editing.key, null)}
            >
              Turn off
            </ActionButton>
          ) : null}
          <span style={{ flex: 1 }} />
          <Button variant="secondary" onClick={props.onClose}>
            Cancel
          </Button>
          <ActionButton
            disabled={incomplete}
            success="Provider saved"
            onClick={() => props.onSave(isNew ? key : props.editing.key, build())}
          >
            {enabled ? "Save" : "Turn on"}
          </ActionButton>
        </>
      }
    >
      {custom ? (
        <>
          {isNew ? (
            <Field
              label="Provider id"
              hint="Apps sign in with it: /auth/oauth/authorize/<id>."
              error={key ? keyProblem : null}
            >
              <input
                type="text"
                name="providerKey"
                value={key}
                onChange={(e) => setKey(e.target.value.trim())}
              />
            </Field>
          ) : null}
          <Field label="Button name" hint="Shown on the sign-in button, e.g. Acme SSO.">
            {input("displayName")}
          </Field>
        </>
      ) : (
        <Field label="Keys">
          <Select name="providerType" value={keys} onChange={setKeys}>
            <option value="shared">Shared development keys</option>
            <option value="standard">My own OAuth app</option>
          </Select>
        </Field>
      )}
      {own ? (
        <>
          {key ? (
            <CopyField
              label="callback-url"
              value={`${window.location.origin}/api/v1/auth/oauth/callback/${key}`}
            />
          ) : null}
          <Field label={type === "apple" ? "Services ID (client ID)" : "Client ID"}>
            {input("clientId")}
          </Field>
          <Field
            label="Client secret"
            hint={type === "apple" ? "Or let Gatehouse mint it from your key below." : undefined}
          >
            {input("clientSecret", "password")}
          </Field>
          {type === "facebook" ? (
            <Field label="Facebook configuration ID" hint="For Facebook Login for Business.">
              {input("facebookConfigId")}
            </Field>
          ) : null}
          {type === "microsoft" ? (
            <Field label="Microsoft tenant ID" hint="Leave empty for any Microsoft account.">
              {input("microsoftTenantId")}
            </Field>
          ) : null}
          {type === "apple" ? (
            <>
              <Field label="Team ID">{input("appleTeamId")}</Field>
              <Field label="Key ID">{input("appleKeyId")}</Field>
              <Field
                label="Private key (.p8)"
                hint={
                  entry.applePrivateKey
                    ? "A key is saved. Paste a new one to replace it."
                    : "The whole file, -----BEGIN PRIVATE KEY----- included."
                }
              >
                <textarea
                  name="applePrivateKey"
                  rows={4}
                  value={form.applePrivateKey}
                  onChange={set("applePrivateKey")}
                />
              </Field>
            </>
          ) : null}
          {issuerField}
          {custom ? (
            <Field label="Scopes" hint="Space-separated. Default: openid email profile.">
              {input("scope")}
            </Field>
          ) : null}
          {showEndpoints ? (
            <>
              <Field label="Authorization endpoint">{input("authorizationEndpoint", "url")}</Field>
              <Field label="Token endpoint">{input("tokenEndpoint", "url")}</Field>
              <Field label="User info endpoint">{input("userInfoEndpoint", "url")}</Field>
            </>
          ) : (
            <Button small variant="ghost" onClick={() => setShowEndpoints(true)}>
              Set endpoints one by one
            </Button>
          )}
        </>
      ) : (
        <div className="alert info">
          Shared keys show Gatehouse's name on the consent screen. Use your own in production.
        </div>
      )}
      {type === "apple" ? (
        <Field
          label="App bundle IDs"
          hint="For Sign in with Apple in your iOS or macOS app, e.g. com.example.app."
        >
          {input("bundleIds")}
        </Field>
      ) : null}
    </Modal>
  );
}
