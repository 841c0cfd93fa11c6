import { Text } from "@react-email/components";
import { bodyTextStyle, EmailLayout, type TemplateOutput } from "./layout.tsx";

export function emailVerificationEmail(props: { projectName: string; link: string }): TemplateOutput {
  const { projectName, link } = props;
  return {
    subject: `Verify your email at ${projectName}`,
    element: (
      <EmailLayout
        projectName={projectName}
        preview={`Verify your email address for ${projectName}`}
        heading="Verify your email address"
        action={{ label: "Verify email", href: link }}
      >
        <Text style={bodyTextStyle}>
          Please confirm that this is your email address for {projectName} by clicking the button below.
        </Text>
      </EmailLayout>
    ),
  };
}
