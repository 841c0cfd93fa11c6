/**
 * The built-in email themes (PROTOCOL-EXTRA §1.1): their ids are the protocol's, their TSX is ours. They ship as
 * config defaults (config/schema.ts), so owners see and edit them like any theme; removing an owner's override
 * brings the built-in back.
 *
 * They use inline styles rather than `<Tailwind>`: Tailwind's compiler is most of the cost of a sandboxed render,
 * and owners who want it can import it in their own themes.
 */
export const DEFAULT_LIGHT_THEME_ID = "1df07ae6-abf3-4a40-83a5-a1a2cbe336ac";
export const DEFAULT_DARK_THEME_ID = "a0172b5d-cff0-463b-83bb-85124697373a";
export const DEFAULT_COLORFUL_THEME_ID = "c7e2d94f-8a1b-4e6d-b3f5-9d0a2e7c1b8f";

/** The theme a project uses until it selects another (`emails.selectedThemeId`). */
export const DEFAULT_SELECTED_THEME_ID = DEFAULT_LIGHT_THEME_ID;

type Palette = {
  page: string;
  card: string;
  text: string;
  muted: string;
  border: string;
  accent: string;
  logoMode: "light" | "dark";
};

function themeSource(palette: Palette): string {
  return `import { Body, Container, Head, Hr, Html, Link, Section, Text } from "@react-email/components";
import { ProjectLogo, type ThemeProps } from "@stackframe/emails";

// Colours in one place, so a copy of this theme is recoloured by editing one object.
const palette = ${JSON.stringify(palette, null, 2)} as const;

const fontFamily = '-apple-system, BlinkMacSystemFont, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif';

export function EmailTheme({ children, unsubscribeLink, projectLogos }: ThemeProps) {
  return (
    <Html>
      <Head />
      <Body style={{ backgroundColor: palette.page, color: palette.text, fontFamily, margin: 0, padding: "32px 12px" }}>
        <Container
          style={{
            backgroundColor: palette.card,
            border: \`1px solid \${palette.border}\`,
            borderRadius: "10px",
            color: palette.text,
            margin: "0 auto",
            maxWidth: "600px",
            padding: "32px",
          }}
        >
          <Section style={{ marginBottom: "16px" }}>
            <ProjectLogo data={projectLogos} mode={palette.logoMode} />
          </Section>
          {children}
        </Container>
        {unsubscribeLink ? (
          <Section style={{ margin: "0 auto", maxWidth: "600px", textAlign: "center" }}>
            <Hr style={{ borderColor: palette.border, margin: "24px 0 12px" }} />
            <Text style={{ color: palette.muted, fontSize: "12px", margin: 0 }}>
              You get this email because of your account settings.{" "}
              <Link href={unsubscribeLink} style={{ color: palette.accent }}>
                Unsubscribe
              </Link>
            </Text>
          </Section>
        ) : null}
      </Body>
    </Html>
  );
}

EmailTheme.PreviewProps = {
  unsubscribeLink: "https://example.com/unsubscribe",
} satisfies Partial<ThemeProps>;
`;
}

const LIGHT: Palette = {
  page: "#f4f4f5",
  card: "#ffffff",
  text: "#18181b",
  muted: "#71717a",
  border: "#e4e4e7",
  accent: "#2563eb",
  logoMode: "light",
};
const DARK: Palette = {
  page: "#09090b",
  card: "#18181b",
  text: "#f4f4f5",
  muted: "#a1a1aa",
  border: "#27272a",
  accent: "#60a5fa",
  logoMode: "dark",
};
const COLORFUL: Palette = {
  page: "#ede9fe",
  card: "#fffbeb",
  text: "#1e1b4b",
  muted: "#6d28d9",
  border: "#c4b5fd",
  accent: "#db2777",
  logoMode: "light",
};

export type BuiltInTheme = { id: string; displayName: string; tsxSource: string };

export const BUILT_IN_THEMES: readonly BuiltInTheme[] = [
  { id: DEFAULT_LIGHT_THEME_ID, displayName: "Default Light", tsxSource: themeSource(LIGHT) },
  { id: DEFAULT_DARK_THEME_ID, displayName: "Default Dark", tsxSource: themeSource(DARK) },
  { id: DEFAULT_COLORFUL_THEME_ID, displayName: "Default Colorful", tsxSource: themeSource(COLORFUL) },
];

/** What a new theme (POST /internal/email-themes) starts from: the Light theme, as the protocol says. */
export const NEW_THEME_SOURCE = BUILT_IN_THEMES[0]!.tsxSource;

/** The wrapper used when a template says "no theme" (`themeId: false`): a document and nothing else. */
export const NO_THEME_SOURCE = `import { Body, Head, Html } from "@react-email/components";
import type { ThemeProps } from "@stackframe/emails";

export function EmailTheme({ children }: ThemeProps) {
  return (
    <Html>
      <Head />
      <Body>{children}</Body>
    </Html>
  );
}
`;

/** What a theme entry missing its source renders as (config written without one). */
export const PLACEHOLDER_THEME_SOURCE = NO_THEME_SOURCE;
