import { Button } from "@gatehouse/react/ui";
import { BUILD_SDK_COMMAND, installAdvice, OFFICIAL_SDK_VERSION } from "@gatehouse/shared";
import { type KeyboardEvent, useId, useRef, useState } from "react";

/**
 * A new project's keys as each kind of app takes them: a `.env` for React (Vite), Next.js and Node with the
 * variable names `gatehouse init` writes (packages/cli/src/commands/init.ts), and for a plain page the values in
 * code. One "Copy" puts the shown text on the clipboard.
 */
export type EnvValues = {
  projectId: string;
  publishable: string | null;
  secret: string | null;
  apiUrl: string;
};

export const FRAMEWORKS = [
  { id: "vite", label: "React (Vite)", file: ".env.local" },
  { id: "next", label: "Next.js", file: ".env.local" },
  { id: "node", label: "Node", file: ".env" },
  { id: "plain", label: "Plain JS", file: "gatehouse.js" },
] as const;
export type FrameworkId = (typeof FRAMEWORKS)[number]["id"];

/** The `.env` lines, as `envLines` in the CLI writes them for each framework. */
export function envFile(framework: Exclude<FrameworkId, "plain">, values: EnvValues): string {
  const prefix =
    framework === "next" ? "NEXT_PUBLIC_STACK_" : framework === "vite" ? "VITE_STACK_" : "STACK_";
  return [
    `${prefix}PROJECT_ID=${values.projectId}`,
    values.publishable ? `${prefix}PUBLISHABLE_CLIENT_KEY=${values.publishable}` : null,
    `${prefix}API_URL=${values.apiUrl}`,
    values.secret ? `STACK_SECRET_SERVER_KEY=${values.secret}` : null,
  ]
    .filter((line) => line !== null)
    .join("\n");
}

/**
 * Plain JavaScript: the official SDK's client app created with the values in code, this server as its `baseUrl`
 * (never the secret key, which is a server's).
 */
function plainSnippet(values: EnvValues): string {
  return [
    'import { StackClientApp } from "@stackframe/js";',
    "",
    "export const app = new StackClientApp({",
    `  projectId: ${JSON.stringify(values.projectId)},`,
    values.publishable ? `  publishableClientKey: ${JSON.stringify(values.publishable)},` : null,
    `  baseUrl: ${JSON.stringify(values.apiUrl)},`,
    '  tokenStore: "cookie",',
    "});",
  ]
    .filter((line) => line !== null)
    .join("\n");
}

/**
 * What to install, from @gatehouse/shared's install lines (the ones e2e/packages/install-lines.test.ts runs): the
 * official SDK pointed at this server first, then our own packages as this server hands them out.
 */
function InstallSteps({ framework, apiUrl }: { framework: FrameworkId; apiUrl: string }) {
  const advice = installAdvice(framework, apiUrl);
  return (
    <div className="env-install" data-testid="install-lines">
      <p className="muted small">
        Install the official SDK (version {OFFICIAL_SDK_VERSION} is tested against Gatehouse):
      </p>
      <code className="env-line" data-testid="install-official">
        {advice.official}
      </code>
      <p className="muted small">Then point it at this server: {advice.usage}</p>
      <p className="muted small">
        Or Gatehouse's own packages, served by this server once <code>{BUILD_SDK_COMMAND}</code> has run in
        the Gatehouse folder:
      </p>
      <code className="env-line" data-testid="install-gatehouse">
        {advice.gatehouse}
      </code>
    </div>
  );
}

export function EnvSnippets({ values }: { values: EnvValues }) {
  const [framework, setFramework] = useState<FrameworkId>("vite");
  const [copied, setCopied] = useState(false);
  const tabs = useRef<(HTMLButtonElement | null)[]>([]);
  const id = useId();
  const current = FRAMEWORKS.find((item) => item.id === framework)!;
  const text = framework === "plain" ? plainSnippet(values) : envFile(framework, values);

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(`${text}\n`);
    } catch {
      // Clipboard access can be refused (insecure origin); the text stays selectable on screen.
    }
    setCopied(true);
    setTimeout(() => setCopied(false), 1500);
  };
  // Arrow keys move between the tabs, as in every tab list (WAI-ARIA Authoring Practices).
  const onKeyDown = (event: KeyboardEvent, index: number) => {
    const step = event.key === "ArrowRight" ? 1 : event.key === "ArrowLeft" ? -1 : 0;
    if (!step) return;
    event.preventDefault();
    const next = (index + step + FRAMEWORKS.length) % FRAMEWORKS.length;
    setFramework(FRAMEWORKS[next]!.id);
    tabs.current[next]?.focus();
  };

  return (
    <div className="env-snippets" data-testid="env-snippets">
      <div className="env-tabs" role="tablist" aria-label="Your app's framework">
        {FRAMEWORKS.map((item, index) => (
          <button
            key={item.id}
            ref={(element) => {
              tabs.current[index] = element;
            }}
            type="button"
            role="tab"
            id={`${id}-${item.id}`}
            aria-selected={item.id === framework}
            aria-controls={`${id}-panel`}
            tabIndex={item.id === framework ? 0 : -1}
            className={`env-tab${item.id === framework ? " active" : ""}`}
            onClick={() => setFramework(item.id)}
            onKeyDown={(event) => onKeyDown(event, index)}
          >
            {item.label}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`${id}-panel`} aria-labelledby={`${id}-${framework}`} className="env-panel">
        <div className="env-panel-head">
          <span className="muted small mono">{current.file}</span>
          <Button small onClick={copy} data-testid="copy-env">
            {copied ? "Copied" : framework === "plain" ? "Copy snippet" : "Copy .env"}
          </Button>
        </div>
        {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard */}
        <pre className="snippet env-text" tabIndex={0} data-testid="env-text">
          {text}
        </pre>
        <InstallSteps framework={framework} apiUrl={values.apiUrl} />
      </div>
    </div>
  );
}
