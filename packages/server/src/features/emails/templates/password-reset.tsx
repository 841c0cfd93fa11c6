import { Text } from "@react-email/components";
import { bodyTextStyle, EmailLayout, type TemplateOutput } from "./layout.tsx";

export function passwordResetEmail(props: { projectName: string; link: string }): TemplateOutput {
  const { projectName, link } = props;
  return {
    subject: `Reset your password at ${projectName}`,
    element: (
      <EmailLayout
        projectName={projectName}
        preview={`Reset your ${projectName} password`}
        heading="Reset your password"
        action={{ label: "Reset password", href: link }}
      >
        <Text style={bodyTextStyle}>
          Someone asked to reset the password of your {projectName} account. If that was you, choose a new
          password with the button below. If not, you can ignore this email: your password stays unchanged.
        </Text>
      </EmailLayout>
    ),
  };
}
