import { bodyTextStyle, EmailLayout, loadEmailComponents, type TemplateOutput } from "./layout.tsx";

/**
 * Sent once when password attempts on an account reach the per-account ceiling. It has no button: the person should
 * act in the app they know (change the password there), not on a link in an email that an attacker caused.
 */
export async function signInAttemptsEmail(props: {
  projectName: string;
  attempts: number;
  windowMinutes: number;
}): Promise<TemplateOutput> {
  const { projectName, attempts, windowMinutes } = props;
  const components = await loadEmailComponents();
  const { Text } = components;
  return {
    subject: `Many failed sign-ins to your ${projectName} account`,
    element: (
      <EmailLayout
        components={components}
        projectName={projectName}
        preview={`${attempts} password attempts on your ${projectName} account`}
        heading="Many failed sign-ins"
      >
        <Text style={bodyTextStyle}>
          There were {attempts} attempts to sign in to your {projectName} account with a password within{" "}
          {windowMinutes} minutes, from places you had not signed in from before. Signing in from devices and
          places you used before works as usual; new places have to wait a little between attempts for a
          while.
        </Text>
        <Text style={bodyTextStyle}>
          If that was not you, make sure your password is long and not used anywhere else, and change it in
          the app if in doubt.
        </Text>
      </EmailLayout>
    ),
  };
}
