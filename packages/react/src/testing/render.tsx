import type { GatehouseClientApp } from "@gatehouse/js";
import { act, Component, type ReactNode, Suspense } from "react";
import { createRoot, type Root } from "react-dom/client";
import { afterEach } from "vitest";
import { GatehouseProvider } from "../provider.tsx";
import type { GatehouseStrings } from "../strings.ts";

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const mounted: Root[] = [];

// Every test file that renders cleans up after each test, as Testing Library does: registered once, here.
afterEach(cleanup);

/** Renders `ui` inside a provider for `app` into the (happy-dom) document. */
export async function render(
  app: GatehouseClientApp,
  ui: ReactNode,
  options: { strings?: Partial<GatehouseStrings>; theme?: "light" | "dark" | "system" } = {},
) {
  const container = document.createElement("div");
  document.body.append(container);
  const root = createRoot(container);
  mounted.push(root);
  await act(async () => {
    root.render(
      <GatehouseProvider app={app} {...options}>
        {ui}
      </GatehouseProvider>,
    );
  });
  return container;
}

/**
 * Renders `ui` inside Suspense whose fallback counts how often it was shown: a test checks that an update did not
 * fall back to the loading state again.
 */
export async function renderCountingFallbacks(app: GatehouseClientApp, ui: ReactNode) {
  let fallbacks = 0;
  function Fallback() {
    fallbacks++;
    return <p>loading</p>;
  }
  const page = await render(app, <Suspense fallback={<Fallback />}>{ui}</Suspense>);
  return { page, fallbacks: () => fallbacks };
}

/** Shows "caught:CODE" for the error its children threw: how a test sees the error a hook throws. */
export class Catch extends Component<{ children: ReactNode }, { error: unknown }> {
  override state = { error: null as unknown };
  static getDerivedStateFromError(error: unknown) {
    return { error };
  }
  override render() {
    return this.state.error ? (
      <p>caught:{(this.state.error as { code?: string }).code}</p>
    ) : (
      this.props.children
    );
  }
}

export async function cleanup() {
  for (const root of mounted.splice(0)) await act(async () => root.unmount());
  document.body.innerHTML = "";
}

/**
 * Waits until `find` returns something. React renders and the fake API answers asynchronously; the waiting
 * happens inside act() so that those updates are applied the way React expects in tests.
 */
export async function waitFor<T>(find: () => T | null | undefined | false, what = "element"): Promise<T> {
  const deadline = Date.now() + 3000;
  for (;;) {
    const found = find();
    if (found !== null && found !== undefined && found !== false) return found;
    if (Date.now() > deadline) throw new Error(`${what} not found`);
    await act(async () => {
      await new Promise((resolve) => setTimeout(resolve, 10));
    });
  }
}

export function byText(root: ParentNode, text: string | RegExp): HTMLElement | null {
  const all = [...root.querySelectorAll<HTMLElement>("*")];
  return (
    all.find((element) => {
      const own = [...element.childNodes]
        .filter((node) => node.nodeType === 3)
        .map((node) => node.textContent)
        .join("")
        .trim();
      const full = element.textContent?.trim() ?? "";
      const matches = (value: string) => (typeof text === "string" ? value === text : text.test(value));
      return matches(own) || (element.children.length === 0 && matches(full));
    }) ?? null
  );
}

export function findText(root: ParentNode, text: string | RegExp) {
  return waitFor(() => byText(root, text), `text ${String(text)}`);
}

/** The input a <label> names. */
export function field(root: ParentNode, label: string): HTMLInputElement {
  const element = [...root.querySelectorAll("label")].find((candidate) => candidate.textContent === label);
  if (!element) throw new Error(`No field labelled ${label}`);
  const input = document.getElementById(element.htmlFor);
  if (!input) throw new Error(`Label ${label} points at nothing`);
  return input as HTMLInputElement;
}

export function button(root: ParentNode, name: string | RegExp): HTMLButtonElement {
  const found = [...root.querySelectorAll("button")].find((candidate) => {
    const label = candidate.getAttribute("aria-label") ?? candidate.textContent?.trim() ?? "";
    return typeof name === "string" ? label === name : name.test(label);
  });
  if (!found) throw new Error(`No button ${String(name)}`);
  return found;
}

/** Types into an input the way React notices (the native value setter, then an input event). */
export async function type(input: HTMLInputElement, value: string) {
  await act(async () => {
    const setter = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value")!.set!;
    setter.call(input, value);
    input.dispatchEvent(new Event("input", { bubbles: true }));
  });
}

export async function click(element: HTMLElement) {
  await act(async () => {
    element.click();
  });
}

/** The error text shown for an input (through its aria-describedby), or null. */
export function errorOf(input: HTMLInputElement): string | null {
  if (input.getAttribute("aria-invalid") !== "true") return null;
  const ids = (input.getAttribute("aria-describedby") ?? "").split(" ");
  const message = ids
    .map((id) => document.getElementById(id))
    .find((element) => element?.className === "gh-field-error");
  return message?.textContent ?? null;
}
