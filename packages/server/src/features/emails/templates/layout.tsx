import type * as ReactEmail from "@react-email/components";
import type { CSSProperties, ReactElement, ReactNode } from "react";

export type EmailComponents = typeof ReactEmail;

let components: Promise<EmailComponents> | undefined;

/**
 * React Email's components, loaded with the first message rendered here rather than at start: the package takes
 * ~0.6 s and ~40 MiB to load (its code block sets up Prism's grammars), and these notices are rare.
 */
export function loadEmailComponents(): Promise<EmailComponents> {
  components ??= import("@react-email/components");
  return components;
}

export type EmailLayoutProps = {
  components: EmailComponents;
  projectName: string;
  /** The inbox preview line, shown by mail clients next to the subject. */
  preview: string;
  heading: string;
  /** The one thing to do, as a button and a copyable link; a notice with nothing to click leaves it out. */
  action?: { label: string; href: string };
  children?: ReactNode;
};

const fontFamily =
  '-apple-system, BlinkMacSystemFont, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif';

const styles = {
  body: { backgroundColor: "#f4f4f5", fontFamily, margin: 0, padding: "24px 0" },
  container: {
    backgroundColor: "#ffffff",
    borderRadius: "8px",
    margin: "0 auto",
    maxWidth: "480px",
    padding: "32px",
  },
  brand: { color: "#52525b", fontSize: "14px", fontWeight: 600, margin: "0 0 24px" },
  heading: { color: "#18181b", fontSize: "22px", fontWeight: 700, lineHeight: "30px", margin: "0 0 16px" },
  actionSection: { margin: "24px 0", textAlign: "center" },
  button: {
    backgroundColor: "#18181b",
    borderRadius: "6px",
    color: "#ffffff",
    fontSize: "15px",
    fontWeight: 600,
    padding: "12px 24px",
    textDecoration: "none",
  },
  muted: { color: "#71717a", fontSize: "13px", lineHeight: "20px", margin: "0" },
  link: { color: "#2563eb", fontSize: "13px", lineHeight: "20px", wordBreak: "break-all" },
  hr: { borderColor: "#e4e4e7", margin: "24px 0" },
} satisfies Record<string, CSSProperties>;

export const bodyTextStyle: CSSProperties = {
  color: "#3f3f46",
  fontSize: "15px",
  lineHeight: "24px",
  margin: "0 0 16px",
};

/**
 * The frame every built-in message shares: the project's name, a heading, the message, one clear button and the
 * same link as text for clients that strip buttons. React escapes every string it renders, so project and team
 * names typed by users cannot inject markup.
 */
export function EmailLayout({
  components,
  projectName,
  preview,
  heading,
  action,
  children,
}: EmailLayoutProps) {
  const { Body, Button, Container, Head, Heading, Hr, Html, Link, Preview, Section, Text } = components;
  return (
    <Html lang="en">
      <Head />
      <Preview>{preview}</Preview>
      <Body style={styles.body}>
        <Container style={styles.container}>
          <Text style={styles.brand}>{projectName}</Text>
          <Heading as="h1" style={styles.heading}>
            {heading}
          </Heading>
          {children}
          {action && (
            <>
              <Section style={styles.actionSection}>
                <Button href={action.href} style={styles.button}>
                  {action.label}
                </Button>
              </Section>
              <Text style={styles.muted}>Or copy and paste this link into your browser:</Text>
              <Link href={action.href} style={styles.link}>
                {action.href}
              </Link>
            </>
          )}
          <Hr style={styles.hr} />
          <Text style={styles.muted}>
            This email was sent by {projectName}. If you did not expect it, you can safely ignore it.
          </Text>
        </Container>
      </Body>
    </Html>
  );
}

/** What a built-in template produces before rendering: the subject line and the message body. */
export type TemplateOutput = { subject: string; element: ReactElement };
