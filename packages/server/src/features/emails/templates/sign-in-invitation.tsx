import { Text } from "@react-email/components";
import { bodyTextStyle, EmailLayout, type TemplateOutput } from "./layout.tsx";

export function signInInvitationEmail(props: { projectName: string; link: string }): TemplateOutput {
  const { projectName, link } = props;
  return {
    subject: `You have been invited to sign in to ${projectName}`,
    element: (
      <EmailLayout
        projectName={projectName}
        preview={`You have been invited to ${projectName}`}
        heading={`Welcome to ${projectName}`}
        action={{ label: "Sign in", href: link }}
      >
        <Text style={bodyTextStyle}>
          You have been invited to sign in to {projectName}. Use the button below to get started.
        </Text>
      </EmailLayout>
    ),
  };
}
