import { useProjectContext } from "../../project-context.tsx";
import { Card, PageHead, Toggle } from "../../ui/components.tsx";
import { usePageTitle } from "../../ui/page-title.ts";
import { useToast } from "../../ui/toast.tsx";
import { OAuthProviders } from "./oauth-providers.tsx";

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

export function AuthMethodsPage() {
  const { project, refresh } = useProjectContext();
  usePageTitle("Auth methods");
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
