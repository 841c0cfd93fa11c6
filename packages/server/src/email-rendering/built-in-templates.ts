/**
 * The built-in email templates (PROTOCOL-EXTRA §1.1): ids, variables and subjects are the protocol's, the TSX and
 * the wording are ours. They ship as config defaults (config/schema.ts); while a project uses the shared email
 * server they are the only templates it has.
 */
import { BUILT_IN_EMAIL_TEMPLATE_IDS, type EmailTemplateType } from "@gatehouse/shared";
export const BUILT_IN_TEMPLATE_IDS = BUILT_IN_EMAIL_TEMPLATE_IDS;

export type BuiltInTemplateType = EmailTemplateType;

/** Shared by every built-in: the imports, and styles that read well on the light, dark and colourful themes. */
const PREAMBLE = `import { Button, Heading, Section, Text } from "@react-email/components";
import { NotificationCategory, Subject, type Props } from "@stackframe/emails";
import { type } from "arktype";

const headingStyle = { fontSize: "22px", lineHeight: "30px", margin: "0 0 16px" };
const buttonStyle = {
  backgroundColor: "#2563eb",
  borderRadius: "6px",
  color: "#ffffff",
  fontSize: "15px",
  fontWeight: 600,
  padding: "12px 24px",
  textDecoration: "none",
};
const mutedStyle = { fontSize: "13px", lineHeight: "20px", opacity: 0.75 };
`;

type TemplateParts = {
  /** The arktype object literal of the variables. */
  schema: string;
  subject: string;
  body: string;
  preview: string;
};

function templateSource(parts: TemplateParts): string {
  return `${PREAMBLE}
export const variablesSchema = type(${parts.schema});

export function EmailTemplate({ user, project, variables }: Props<typeof variablesSchema.infer>) {
  const greeting = user.displayName ? \`Hi \${user.displayName},\` : "Hi,";
  return (
    <>
      <Subject value={${parts.subject}} />
      <NotificationCategory value="Transactional" />
${parts.body}
    </>
  );
}

EmailTemplate.PreviewVariables = ${parts.preview} satisfies typeof variablesSchema.infer;
`;
}

/** A call-to-action button and the same link as text, for mail clients that hide buttons. */
function action(label: string, variable: string): string {
  return `      <Section style={{ margin: "24px 0", textAlign: "center" }}>
        <Button href={variables.${variable}} style={buttonStyle}>
          ${label}
        </Button>
      </Section>
      <Text style={mutedStyle}>
        Or paste this link into your browser: {variables.${variable}}
      </Text>`;
}

const IGNORE_NOTE = `      <Text style={mutedStyle}>If you did not expect this email, you can safely ignore it.</Text>`;

const SOURCES: Record<BuiltInTemplateType, { displayName: string; parts: TemplateParts }> = {
  email_verification: {
    displayName: "Email Verification",
    parts: {
      schema: `{ emailVerificationLink: "string" }`,
      subject: `\`Verify your email at \${project.displayName}\``,
      body: `      <Heading as="h1" style={headingStyle}>Confirm your email address</Heading>
      <Text>{greeting} please confirm that this address belongs to your {project.displayName} account.</Text>
${action("Verify email", "emailVerificationLink")}
${IGNORE_NOTE}`,
      preview: `{ emailVerificationLink: "https://example.com/handler/email-verification?code=preview" }`,
    },
  },
  password_reset: {
    displayName: "Password Reset",
    parts: {
      schema: `{ passwordResetLink: "string" }`,
      subject: `\`Reset your password at \${project.displayName}\``,
      body: `      <Heading as="h1" style={headingStyle}>Choose a new password</Heading>
      <Text>{greeting} someone asked to reset the password of your {project.displayName} account. The link below lets you pick a new one.</Text>
${action("Reset password", "passwordResetLink")}
      <Text style={mutedStyle}>If it was not you, ignore this email: your password stays as it is.</Text>`,
      preview: `{ passwordResetLink: "https://example.com/handler/password-reset?code=preview" }`,
    },
  },
  magic_link: {
    displayName: "Magic Link/OTP",
    parts: {
      schema: `{ magicLink: "string", otp: "string" }`,
      subject: `\`Sign in to \${project.displayName}: Your code is \${variables.otp}\``,
      body: `      <Heading as="h1" style={headingStyle}>Your sign-in code</Heading>
      <Text>{greeting} enter this code to sign in to {project.displayName}:</Text>
      <Text style={{ fontSize: "28px", fontWeight: 700, letterSpacing: "6px", textAlign: "center" }}>{variables.otp}</Text>
${action("Sign in", "magicLink")}
${IGNORE_NOTE}`,
      preview: `{ magicLink: "https://example.com/handler/magic-link-callback?code=preview", otp: "3AB7QX" }`,
    },
  },
  team_invitation: {
    displayName: "Team Invitation",
    parts: {
      schema: `{ teamDisplayName: "string", teamInvitationLink: "string" }`,
      subject: `\`You have been invited to join \${variables.teamDisplayName}\``,
      body: `      <Heading as="h1" style={headingStyle}>Join {variables.teamDisplayName}</Heading>
      <Text>{greeting} you have been invited to the team {variables.teamDisplayName} on {project.displayName}.</Text>
${action("Accept invitation", "teamInvitationLink")}
${IGNORE_NOTE}`,
      preview: `{ teamDisplayName: "Design Team", teamInvitationLink: "https://example.com/handler/team-invitation?code=preview" }`,
    },
  },
  sign_in_invitation: {
    displayName: "Sign In Invitation",
    parts: {
      schema: `{ signInInvitationLink: "string", teamDisplayName: "string" }`,
      subject: `\`You have been invited to sign in to \${project.displayName}\``,
      body: `      <Heading as="h1" style={headingStyle}>You are invited to {variables.teamDisplayName}</Heading>
      <Text>{greeting} an account is waiting for you on {project.displayName}. Sign in to get started.</Text>
${action("Sign in", "signInInvitationLink")}
${IGNORE_NOTE}`,
      preview: `{ signInInvitationLink: "https://example.com/handler/sign-in", teamDisplayName: "My Project" }`,
    },
  },
  payment_receipt: {
    displayName: "Payment Receipt",
    parts: {
      schema: `{ productName: "string", quantity: "number", amount: "string", "receiptLink?": "string" }`,
      subject: `\`Your receipt from \${project.displayName}\``,
      body: `      <Heading as="h1" style={headingStyle}>Thank you for your purchase</Heading>
      <Text>{greeting} your payment to {project.displayName} went through.</Text>
      <Text>
        {variables.quantity > 1 ? \`\${variables.quantity} × \` : ""}{variables.productName}: <strong>{variables.amount}</strong>
      </Text>
      {variables.receiptLink ? (
        <Section style={{ margin: "24px 0", textAlign: "center" }}>
          <Button href={variables.receiptLink} style={buttonStyle}>
            View receipt
          </Button>
        </Section>
      ) : null}
      <Text style={mutedStyle}>Keep this email for your records.</Text>`,
      preview: `{ productName: "Pro plan", quantity: 1, amount: "USD 29.00", receiptLink: "https://example.com/receipt" }`,
    },
  },
  payment_failed: {
    displayName: "Payment Failed",
    parts: {
      schema: `{ productName: "string", amount: "string", "invoiceUrl?": "string", "failureReason?": "string" }`,
      subject: `\`Payment failed for \${project.displayName}\``,
      body: `      <Heading as="h1" style={headingStyle}>Your payment did not go through</Heading>
      <Text>{greeting} we could not charge {variables.amount} for {variables.productName} at {project.displayName}.</Text>
      {variables.failureReason ? <Text>The reason given: {variables.failureReason}</Text> : null}
      {variables.invoiceUrl ? (
        <Section style={{ margin: "24px 0", textAlign: "center" }}>
          <Button href={variables.invoiceUrl} style={buttonStyle}>
            Pay the invoice
          </Button>
        </Section>
      ) : null}
      <Text style={mutedStyle}>Update your payment method to keep what you bought.</Text>`,
      preview: `{ productName: "Pro plan", amount: "USD 29.00", invoiceUrl: "https://example.com/invoice", failureReason: "Your card was declined." }`,
    },
  },
};

export type BuiltInTemplate = {
  type: BuiltInTemplateType;
  id: string;
  displayName: string;
  tsxSource: string;
};

export const BUILT_IN_TEMPLATES: readonly BuiltInTemplate[] = (
  Object.keys(SOURCES) as BuiltInTemplateType[]
).map((type) => ({
  type,
  id: BUILT_IN_TEMPLATE_IDS[type],
  displayName: SOURCES[type].displayName,
  tsxSource: templateSource(SOURCES[type].parts),
}));

/** What a new template (POST /internal/email-templates) starts from: one number variable, transactional. */
export const NEW_TEMPLATE_SOURCE = `import { Heading, Text } from "@react-email/components";
import { NotificationCategory, Subject, type Props } from "@stackframe/emails";
import { type } from "arktype";

export const variablesSchema = type({ count: "number" });

export function EmailTemplate({ user, project, variables }: Props<typeof variablesSchema.infer>) {
  return (
    <>
      <Subject value={\`An update from \${project.displayName}\`} />
      <NotificationCategory value="Transactional" />
      <Heading as="h1">Hello {user.displayName ?? "there"}</Heading>
      <Text>You have {variables.count} new notifications.</Text>
    </>
  );
}

EmailTemplate.PreviewVariables = { count: 3 } satisfies typeof variablesSchema.infer;
`;

/** What a new email draft (POST /internal/email-drafts) starts from: no variables, Marketing (PROTOCOL-EXTRA §1.5). */
export const NEW_DRAFT_SOURCE = `import { Heading, Text } from "@react-email/components";
import { NotificationCategory, Subject, type Props } from "@stackframe/emails";

export function EmailTemplate({ user, project }: Props) {
  return (
    <>
      <Subject value={\`News from \${project.displayName}\`} />
      <NotificationCategory value="Marketing" />
      <Heading as="h1">Hello {user.displayName ?? "there"}</Heading>
      <Text>Write your message here.</Text>
    </>
  );
}
`;

/** What a template entry missing its source renders as (config written without one). */
export const PLACEHOLDER_TEMPLATE_SOURCE = `import { Text } from "@react-email/components";
import { NotificationCategory, Subject } from "@stackframe/emails";

export function EmailTemplate() {
  return (
    <>
      <Subject value="(no subject)" />
      <NotificationCategory value="Transactional" />
      <Text>This template has no content yet.</Text>
    </>
  );
}
`;

/**
 * What `send-email {html}` renders (PROTOCOL-EXTRA §1.2): the caller's HTML as the content, inside the chosen
 * theme. No markers: the subject and the category come from the request, if it gives them.
 */
export const HTML_EMAIL_TEMPLATE_SOURCE = `import { type } from "arktype";

export const variablesSchema = type({ html: "string" });

export function EmailTemplate({ variables }: { variables: typeof variablesSchema.infer }) {
  return <div dangerouslySetInnerHTML={{ __html: variables.html }} />;
}
`;
