/**
 * The package's stylesheet, injected once by the provider. Every rule is scoped under `.gh-root`, and the
 * variables are declared with zero specificity (`:where`) so that an app re-themes with a plain
 * `.gh-root { --gh-primary: … }` rule and nothing here leaks onto the host page.
 */
const light = `
  --gh-font: ui-sans-serif, system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  --gh-mono: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace;
  --gh-bg: #f6f7f9;
  --gh-surface: #ffffff;
  --gh-surface-2: #f3f4f6;
  --gh-surface-hover: #f0f1f4;
  --gh-border: #e4e6eb;
  --gh-border-strong: #d1d5db;
  --gh-text: #111827;
  --gh-text-muted: #5f6673;
  --gh-primary: #4f46e5;
  --gh-primary-hover: #4338ca;
  --gh-primary-text: #ffffff;
  --gh-primary-soft: #eef2ff;
  --gh-ring: rgba(79, 70, 229, 0.35);
  --gh-danger: #dc2626;
  --gh-danger-hover: #b91c1c;
  --gh-danger-soft: #fef2f2;
  --gh-danger-border: #fecaca;
  --gh-success: #15803d;
  --gh-success-soft: #f0fdf4;
  --gh-success-border: #bbf7d0;
  --gh-info-soft: #eff6ff;
  --gh-info-border: #bfdbfe;
  --gh-info: #1d4ed8;
  --gh-warning: #b45309;
  --gh-warning-soft: #fffbeb;
  --gh-warning-border: #fde68a;
  --gh-radius: 12px;
  --gh-radius-sm: 8px;
  --gh-shadow: 0 1px 2px rgba(16, 24, 40, 0.04), 0 8px 24px rgba(16, 24, 40, 0.06);
  --gh-shadow-sm: 0 1px 2px rgba(16, 24, 40, 0.04), 0 1px 3px rgba(16, 24, 40, 0.06);
  --gh-shadow-pop: 0 4px 6px rgba(16, 24, 40, 0.05), 0 16px 40px rgba(16, 24, 40, 0.14);
  color-scheme: light;
`;

const dark = `
  --gh-bg: #0b0d12;
  --gh-surface: #13161d;
  --gh-surface-2: #1a1e27;
  --gh-surface-hover: #1f2430;
  --gh-border: #262b36;
  --gh-border-strong: #353b48;
  --gh-text: #eceef2;
  --gh-text-muted: #9aa2b1;
  --gh-primary: #818cf8;
  --gh-primary-hover: #a5b4fc;
  --gh-primary-text: #0b0d12;
  --gh-primary-soft: rgba(129, 140, 248, 0.14);
  --gh-ring: rgba(129, 140, 248, 0.45);
  --gh-danger: #f87171;
  --gh-danger-hover: #fca5a5;
  --gh-danger-soft: rgba(248, 113, 113, 0.1);
  --gh-danger-border: rgba(248, 113, 113, 0.35);
  --gh-success: #4ade80;
  --gh-success-soft: rgba(74, 222, 128, 0.1);
  --gh-success-border: rgba(74, 222, 128, 0.3);
  --gh-info-soft: rgba(96, 165, 250, 0.1);
  --gh-info-border: rgba(96, 165, 250, 0.3);
  --gh-info: #93c5fd;
  --gh-warning: #fbbf24;
  --gh-warning-soft: rgba(251, 191, 36, 0.1);
  --gh-warning-border: rgba(251, 191, 36, 0.3);
  --gh-shadow: 0 1px 2px rgba(0, 0, 0, 0.3), 0 8px 24px rgba(0, 0, 0, 0.35);
  --gh-shadow-sm: 0 1px 2px rgba(0, 0, 0, 0.4);
  --gh-shadow-pop: 0 4px 6px rgba(0, 0, 0, 0.3), 0 16px 40px rgba(0, 0, 0, 0.5);
  color-scheme: dark;
`;

export const GATEHOUSE_CSS = `
:where(.gh-root) {${light}}
:where(.gh-root[data-gh-theme="dark"]) {${dark}}
@media (prefers-color-scheme: dark) {
  :where(.gh-root[data-gh-theme="system"]) {${dark}}
}

.gh-root {
  font-family: var(--gh-font);
  font-size: 14px;
  line-height: 1.5;
  color: var(--gh-text);
  -webkit-font-smoothing: antialiased;
  text-align: left;
}
.gh-root.gh-inline { display: inline-flex; }
.gh-root *, .gh-root *::before, .gh-root *::after { box-sizing: border-box; }
.gh-root :where(h1, h2, h3, p, ul, ol, dl, dd) { margin: 0; }
.gh-root :where(ul, ol) { padding: 0; list-style: none; }
.gh-root :where(button, input, select, textarea) { font: inherit; color: inherit; }
.gh-root :focus-visible { outline: 2px solid var(--gh-primary); outline-offset: 2px; }
.gh-visually-hidden {
  position: absolute !important; width: 1px; height: 1px; padding: 0; margin: -1px; overflow: hidden;
  clip: rect(0 0 0 0); white-space: nowrap; border: 0;
}

/* Page and card */
.gh-page {
  display: flex; justify-content: center; align-items: flex-start;
  padding: clamp(24px, 8vh, 72px) 16px 48px; width: 100%;
}
.gh-page-wide { align-items: stretch; }
.gh-card {
  width: 100%; max-width: 420px; background: var(--gh-surface); border: 1px solid var(--gh-border);
  border-radius: var(--gh-radius); box-shadow: var(--gh-shadow); padding: 32px;
}
@media (max-width: 480px) {
  .gh-card { padding: 24px 20px; border-radius: 10px; }
}
.gh-card-header { display: flex; flex-direction: column; align-items: center; text-align: center; gap: 6px; margin-bottom: 24px; }
.gh-mark {
  display: inline-flex; align-items: center; justify-content: center; width: 40px; height: 40px;
  border-radius: 10px; background: var(--gh-primary); color: var(--gh-primary-text); margin-bottom: 10px;
}
.gh-mark svg { width: 22px; height: 22px; }
.gh-mark-success { background: var(--gh-success-soft); color: var(--gh-success); border: 1px solid var(--gh-success-border); }
.gh-mark-danger { background: var(--gh-danger-soft); color: var(--gh-danger); border: 1px solid var(--gh-danger-border); }
.gh-mark-muted { background: var(--gh-surface-2); color: var(--gh-text-muted); border: 1px solid var(--gh-border); }
.gh-title { font-size: 20px; font-weight: 650; letter-spacing: -0.01em; line-height: 1.3; }
.gh-subtitle { color: var(--gh-text-muted); font-size: 14px; }
.gh-card-footer {
  margin-top: 24px; padding-top: 20px; border-top: 1px solid var(--gh-border);
  text-align: center; color: var(--gh-text-muted); font-size: 13px;
}
.gh-brand { margin-top: 16px; text-align: center; font-size: 12px; color: var(--gh-text-muted); }
.gh-text { color: var(--gh-text); }
.gh-muted { color: var(--gh-text-muted); }
.gh-sr-only {
  position: absolute; width: 1px; height: 1px; padding: 0; margin: -1px; overflow: hidden;
  clip: rect(0, 0, 0, 0); white-space: nowrap; border: 0;
}
.gh-center { text-align: center; }
.gh-stack { display: flex; flex-direction: column; gap: 16px; }
.gh-stack-sm { display: flex; flex-direction: column; gap: 8px; }
.gh-row-actions { display: flex; gap: 8px; flex-wrap: wrap; align-items: center; }
.gh-row-actions-end { justify-content: flex-end; }

/* Forms */
.gh-form { display: flex; flex-direction: column; gap: 16px; }
.gh-field { display: flex; flex-direction: column; gap: 6px; }
.gh-label-row { display: flex; justify-content: space-between; align-items: baseline; gap: 8px; }
.gh-label { font-size: 13px; font-weight: 550; color: var(--gh-text); }
.gh-input-wrap { position: relative; display: flex; }
.gh-input {
  width: 100%; height: 40px; padding: 0 12px; border-radius: var(--gh-radius-sm);
  border: 1px solid var(--gh-border-strong); background: var(--gh-surface); color: var(--gh-text);
  transition: border-color 120ms, box-shadow 120ms; font-size: 14px;
}
.gh-input::placeholder { color: var(--gh-text-muted); opacity: 0.7; }
.gh-input:hover { border-color: var(--gh-text-muted); }
.gh-root .gh-input:focus-visible, .gh-root .gh-input:focus {
  outline: none; border-color: var(--gh-primary); box-shadow: 0 0 0 3px var(--gh-ring);
}
.gh-input[aria-invalid="true"] { border-color: var(--gh-danger); }
.gh-root .gh-input[aria-invalid="true"]:focus { box-shadow: 0 0 0 3px var(--gh-danger-soft); border-color: var(--gh-danger); }
.gh-input:disabled { opacity: 0.6; cursor: not-allowed; }
.gh-input-with-button { padding-right: 44px; }
.gh-input-button {
  position: absolute; right: 4px; top: 4px; height: 32px; width: 36px; display: inline-flex;
  align-items: center; justify-content: center; border: 0; background: transparent; color: var(--gh-text-muted);
  border-radius: 6px; cursor: pointer;
}
.gh-input-button:hover { background: var(--gh-surface-2); color: var(--gh-text); }
.gh-input-button svg { width: 18px; height: 18px; }
.gh-input-code {
  font-family: var(--gh-mono); font-size: 22px; letter-spacing: 0.4em; text-align: center;
  height: 52px; text-transform: uppercase; padding-left: calc(12px + 0.4em);
}
.gh-hint { font-size: 12.5px; color: var(--gh-text-muted); }
.gh-field-error {
  display: flex; gap: 6px; align-items: flex-start; font-size: 13px; color: var(--gh-danger);
}
.gh-field-error svg { flex: none; width: 15px; height: 15px; margin-top: 2px; }
.gh-checkbox { display: inline-flex; gap: 8px; align-items: center; cursor: pointer; }
.gh-select {
  height: 40px; padding: 0 32px 0 12px; border-radius: var(--gh-radius-sm); border: 1px solid var(--gh-border-strong);
  background: var(--gh-surface); color: var(--gh-text); appearance: none; cursor: pointer;
  background-image: linear-gradient(45deg, transparent 50%, var(--gh-text-muted) 50%), linear-gradient(135deg, var(--gh-text-muted) 50%, transparent 50%);
  background-position: calc(100% - 16px) 50%, calc(100% - 11px) 50%; background-size: 5px 5px; background-repeat: no-repeat;
}
.gh-root .gh-select:focus { outline: none; border-color: var(--gh-primary); box-shadow: 0 0 0 3px var(--gh-ring); }

/* Buttons */
.gh-button {
  display: inline-flex; align-items: center; justify-content: center; gap: 8px; height: 40px; padding: 0 16px;
  border-radius: var(--gh-radius-sm); border: 1px solid transparent; font-weight: 560; font-size: 14px;
  cursor: pointer; white-space: nowrap; text-decoration: none; transition: background 120ms, border-color 120ms, color 120ms;
  background: var(--gh-primary); color: var(--gh-primary-text); position: relative;
}
.gh-button:hover:not(:disabled) { background: var(--gh-primary-hover); }
.gh-button:disabled { opacity: 0.6; cursor: not-allowed; }
.gh-button-block { width: 100%; }
.gh-button-sm { height: 32px; padding: 0 12px; font-size: 13px; }
.gh-button-secondary { background: var(--gh-surface); color: var(--gh-text); border-color: var(--gh-border-strong); }
.gh-button-secondary:hover:not(:disabled) { background: var(--gh-surface-hover); }
.gh-button-ghost { background: transparent; color: var(--gh-text); }
.gh-button-ghost:hover:not(:disabled) { background: var(--gh-surface-2); }
.gh-button-danger { background: var(--gh-danger); color: #fff; }
.gh-button-danger:hover:not(:disabled) { background: var(--gh-danger-hover); }
.gh-button-danger-outline { background: transparent; color: var(--gh-danger); border-color: var(--gh-danger-border); }
.gh-button-danger-outline:hover:not(:disabled) { background: var(--gh-danger-soft); }
.gh-button[aria-busy="true"] { color: transparent; }
.gh-button[aria-busy="true"] .gh-spinner { position: absolute; inset: 0; margin: auto; color: var(--gh-primary-text); }
.gh-button-secondary[aria-busy="true"] .gh-spinner, .gh-button-ghost[aria-busy="true"] .gh-spinner { color: var(--gh-text); }
.gh-provider-icon {
  width: 20px; height: 20px; border-radius: 5px; display: inline-flex; align-items: center; justify-content: center;
  font-size: 11px; font-weight: 700; color: #fff; flex: none;
}
.gh-button svg { width: 16px; height: 16px; flex: none; }
.gh-link {
  color: var(--gh-primary); font-weight: 550; text-decoration: none; background: none; border: 0; padding: 0;
  cursor: pointer; font-size: inherit;
}
.gh-link:hover { text-decoration: underline; }
.gh-link-muted { color: var(--gh-text-muted); font-weight: 500; }

.gh-spinner {
  width: 16px; height: 16px; border-radius: 50%; border: 2px solid currentColor; border-right-color: transparent;
  animation: gh-spin 0.7s linear infinite; display: inline-block; flex: none;
}
.gh-spinner-lg { width: 28px; height: 28px; border-width: 3px; color: var(--gh-primary); }
@keyframes gh-spin { to { transform: rotate(360deg); } }
@media (prefers-reduced-motion: reduce) { .gh-spinner { animation-duration: 2s; } }
.gh-loading { display: flex; flex-direction: column; align-items: center; justify-content: center; gap: 12px; padding: 32px 0; color: var(--gh-text-muted); }

/* Divider, tabs, alerts */
.gh-divider { display: flex; align-items: center; gap: 12px; color: var(--gh-text-muted); font-size: 12px; text-transform: uppercase; letter-spacing: 0.06em; }
.gh-divider::before, .gh-divider::after { content: ""; flex: 1; height: 1px; background: var(--gh-border); }
.gh-tabs { display: grid; grid-auto-flow: column; grid-auto-columns: 1fr; gap: 4px; padding: 4px; background: var(--gh-surface-2); border-radius: 10px; border: 1px solid var(--gh-border); }
.gh-tab {
  height: 32px; border: 0; border-radius: 7px; background: transparent; color: var(--gh-text-muted);
  font-weight: 550; font-size: 13px; cursor: pointer;
}
.gh-tab[aria-selected="true"] { background: var(--gh-surface); color: var(--gh-text); box-shadow: 0 1px 2px rgba(0,0,0,0.08); }
.gh-alert {
  display: flex; gap: 10px; align-items: flex-start; padding: 12px 14px; border-radius: var(--gh-radius-sm);
  border: 1px solid var(--gh-border); background: var(--gh-surface-2); font-size: 13.5px;
}
.gh-alert svg { width: 16px; height: 16px; flex: none; margin-top: 2px; }
.gh-alert-error { background: var(--gh-danger-soft); border-color: var(--gh-danger-border); color: var(--gh-danger); }
.gh-alert-success { background: var(--gh-success-soft); border-color: var(--gh-success-border); color: var(--gh-success); }
.gh-alert-info { background: var(--gh-info-soft); border-color: var(--gh-info-border); color: var(--gh-info); }
.gh-alert-body { color: var(--gh-text); }
.gh-badge {
  display: inline-flex; align-items: center; height: 20px; padding: 0 8px; border-radius: 999px; font-size: 11.5px;
  font-weight: 600; background: var(--gh-surface-2); color: var(--gh-text-muted); border: 1px solid var(--gh-border); white-space: nowrap;
}
.gh-badge-primary { background: var(--gh-primary-soft); color: var(--gh-primary); border-color: transparent; }
.gh-badge-success { background: var(--gh-success-soft); color: var(--gh-success); border-color: var(--gh-success-border); }
.gh-badge-danger { background: var(--gh-danger-soft); color: var(--gh-danger); border-color: var(--gh-danger-border); }
.gh-code-block {
  font-family: var(--gh-mono); font-size: 13px; padding: 10px 12px; border-radius: var(--gh-radius-sm);
  background: var(--gh-surface-2); border: 1px solid var(--gh-border); word-break: break-all;
}

/* Avatar and menus */
.gh-avatar {
  width: 32px; height: 32px; border-radius: 50%; display: inline-flex; align-items: center; justify-content: center;
  background: var(--gh-primary-soft); color: var(--gh-primary); font-weight: 650; font-size: 13px; overflow: hidden; flex: none;
}
.gh-avatar img { width: 100%; height: 100%; object-fit: cover; }
.gh-avatar-lg { width: 56px; height: 56px; font-size: 20px; }
.gh-avatar-team { border-radius: 8px; }
.gh-menu-anchor { position: relative; display: inline-flex; }
.gh-menu-trigger {
  display: inline-flex; align-items: center; gap: 8px; border: 1px solid transparent; background: transparent;
  padding: 3px; border-radius: 999px; cursor: pointer;
}
.gh-menu-trigger:hover { background: var(--gh-surface-2); }
.gh-menu-trigger-box {
  border-radius: var(--gh-radius-sm); padding: 4px 10px 4px 4px; border-color: var(--gh-border-strong); background: var(--gh-surface);
  min-width: 180px; justify-content: space-between; height: 40px;
}
.gh-menu-trigger-label { display: inline-flex; align-items: center; gap: 8px; min-width: 0; }
.gh-menu-trigger-label span { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; font-weight: 550; }
.gh-chevron { width: 14px; height: 14px; color: var(--gh-text-muted); flex: none; }
.gh-menu {
  position: absolute; top: calc(100% + 6px); right: 0; min-width: 240px; z-index: 50;
  background: var(--gh-surface); border: 1px solid var(--gh-border); border-radius: var(--gh-radius);
  box-shadow: var(--gh-shadow-pop); padding: 6px;
}
.gh-menu-left { left: 0; right: auto; }
.gh-menu-header { display: flex; gap: 10px; align-items: center; padding: 8px 10px 10px; border-bottom: 1px solid var(--gh-border); margin-bottom: 6px; }
.gh-menu-header-text { min-width: 0; display: flex; flex-direction: column; }
.gh-menu-header-text strong { font-weight: 600; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.gh-menu-header-text span { color: var(--gh-text-muted); font-size: 12.5px; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.gh-menu-item {
  display: flex; width: 100%; align-items: center; gap: 10px; padding: 8px 10px; border: 0; border-radius: 7px;
  background: transparent; color: var(--gh-text); text-align: left; cursor: pointer; font-size: 13.5px; text-decoration: none;
}
.gh-menu-item svg { width: 16px; height: 16px; color: var(--gh-text-muted); flex: none; }
.gh-menu-item:hover, .gh-menu-item:focus-visible { background: var(--gh-surface-2); outline: none; }
.gh-menu-item[aria-checked="true"] { font-weight: 600; }
.gh-menu-separator { height: 1px; background: var(--gh-border); margin: 6px 0; }
.gh-menu-label { padding: 6px 10px 4px; font-size: 11.5px; color: var(--gh-text-muted); text-transform: uppercase; letter-spacing: 0.05em; font-weight: 600; }

/* Settings */
.gh-settings { width: 100%; max-width: 960px; display: grid; grid-template-columns: 220px minmax(0, 1fr); gap: 32px; align-items: start; }
.gh-settings-nav { position: sticky; top: 24px; display: flex; flex-direction: column; gap: 2px; }
.gh-settings-nav-title { font-size: 20px; font-weight: 650; letter-spacing: -0.01em; margin-bottom: 16px; padding: 0 10px; }
.gh-settings-nav a {
  display: flex; align-items: center; gap: 10px; padding: 8px 10px; border-radius: 8px; color: var(--gh-text-muted);
  text-decoration: none; font-weight: 520;
}
.gh-settings-nav a svg { width: 16px; height: 16px; }
.gh-settings-nav a:hover { background: var(--gh-surface-2); color: var(--gh-text); }
.gh-settings-nav a[aria-current="true"] { background: var(--gh-primary-soft); color: var(--gh-primary); }
.gh-settings-main { display: flex; flex-direction: column; gap: 24px; min-width: 0; }
@media (max-width: 760px) {
  .gh-settings { grid-template-columns: 1fr; gap: 16px; }
  .gh-settings-nav { position: static; flex-direction: row; overflow-x: auto; gap: 4px; padding-bottom: 4px; }
  .gh-settings-nav-title { display: none; }
  .gh-settings-nav a { white-space: nowrap; }
}
.gh-section { background: var(--gh-surface); border: 1px solid var(--gh-border); border-radius: var(--gh-radius); box-shadow: var(--gh-shadow); scroll-margin-top: 24px; }
.gh-section-header { padding: 20px 24px 0; display: flex; flex-direction: column; gap: 2px; }
.gh-section-title { font-size: 16px; font-weight: 630; }
.gh-section-body { padding: 16px 24px 24px; display: flex; flex-direction: column; gap: 16px; }
.gh-section-danger { border-color: var(--gh-danger-border); }
.gh-subsection { display: flex; gap: 16px; justify-content: space-between; align-items: flex-start; flex-wrap: wrap; }
.gh-subsection + .gh-subsection { border-top: 1px solid var(--gh-border); padding-top: 16px; }
.gh-subsection-text { display: flex; flex-direction: column; gap: 2px; min-width: 200px; flex: 1; }
.gh-subsection-title { font-weight: 600; }
.gh-list { display: flex; flex-direction: column; border: 1px solid var(--gh-border); border-radius: var(--gh-radius-sm); }
.gh-list-item { display: flex; align-items: center; gap: 12px; padding: 12px 14px; flex-wrap: wrap; }
.gh-list-item + .gh-list-item { border-top: 1px solid var(--gh-border); }
.gh-list-main { flex: 1; min-width: 180px; display: flex; flex-direction: column; gap: 2px; }
.gh-list-title { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; font-weight: 550; word-break: break-word; }
.gh-list-meta { font-size: 12.5px; color: var(--gh-text-muted); }
.gh-empty { padding: 16px; text-align: center; color: var(--gh-text-muted); border: 1px dashed var(--gh-border-strong); border-radius: var(--gh-radius-sm); }
.gh-inline-form { display: flex; gap: 8px; align-items: flex-start; flex-wrap: wrap; }
.gh-inline-form .gh-field { flex: 1; min-width: 200px; }
.gh-qr { display: flex; gap: 20px; align-items: center; flex-wrap: wrap; }
.gh-qr img { width: 164px; height: 164px; border-radius: 10px; background: #fff; padding: 8px; border: 1px solid var(--gh-border); }
.gh-switch {
  position: relative; width: 36px; height: 20px; border-radius: 999px; border: 0; background: var(--gh-border-strong);
  cursor: pointer; flex: none; transition: background 150ms;
}
.gh-switch::after {
  content: ""; position: absolute; left: 2px; top: 2px; width: 16px; height: 16px; border-radius: 50%;
  background: #fff; transition: transform 150ms; box-shadow: 0 1px 2px rgba(0,0,0,0.2);
}
.gh-switch[aria-checked="true"] { background: var(--gh-primary); }
.gh-switch[aria-checked="true"]::after { transform: translateX(16px); }
.gh-switch:disabled { opacity: 0.5; cursor: not-allowed; }
`;

/**
 * The variables alone, light and dark, under the given selectors: for an app that draws its own UI in the same
 * colours (the dashboard puts them on `:root`). The dark selector must match the same element as the light one,
 * more specifically, because it declares only what differs.
 */
export function gatehouseTokensCss(selectors: { light: string; dark: string }): string {
  return `${selectors.light} {${light}}\n${selectors.dark} {${dark}}\n`;
}

export const STYLE_ELEMENT_ID = "gatehouse-styles";
