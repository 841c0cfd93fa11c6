import { Section, Text } from "@react-email/components";
import { bodyTextStyle, EmailLayout, type TemplateOutput } from "./layout.tsx";

const codeStyle = {
  backgroundColor: "#f4f4f5",
  borderRadius: "6px",
  color: "#18181b",
  fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace',
  fontSize: "32px",
  fontWeight: 700,
  letterSpacing: "8px",
  margin: "0",
  padding: "16px 0",
  textAlign: "center",
} as const;

export function magicLinkEmail(props: { projectName: string; link: string; otp: string }): TemplateOutput {
  const { projectName, link } = props;
  const code = props.otp.toUpperCase();
  return {
    subject: `Sign in to ${projectName}: Your code is ${code}`,
    element: (
      <EmailLayout
        projectName={projectName}
        preview={`Your sign-in code for ${projectName} is ${code}`}
        heading={`Sign in to ${projectName}`}
        action={{ label: "Sign in", href: link }}
      >
        <Text style={bodyTextStyle}>Enter this code to sign in, or use the button below.</Text>
        <Section>
          <Text style={codeStyle}>{code}</Text>
        </Section>
      </EmailLayout>
    ),
  };
}
