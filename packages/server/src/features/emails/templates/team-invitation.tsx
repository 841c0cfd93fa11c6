import { Text } from "@react-email/components";
import { bodyTextStyle, EmailLayout, type TemplateOutput } from "./layout.tsx";

export function teamInvitationEmail(props: {
  projectName: string;
  link: string;
  teamDisplayName: string;
}): TemplateOutput {
  const { projectName, link, teamDisplayName } = props;
  return {
    subject: `You have been invited to join ${teamDisplayName} on ${projectName}`,
    element: (
      <EmailLayout
        projectName={projectName}
        preview={`Join ${teamDisplayName} on ${projectName}`}
        heading={`Join ${teamDisplayName}`}
        action={{ label: "Join team", href: link }}
      >
        <Text style={bodyTextStyle}>
          You have been invited to join the team {teamDisplayName} on {projectName}.
        </Text>
      </EmailLayout>
    ),
  };
}
