import { useEffect } from "react";
import { useProjectContext } from "../project-context.tsx";

/** The product's name, last in every title. */
const PRODUCT = "Gatehouse";

/** `parts` joined with " · ", empty ones left out, ending in the product's name. */
export function documentTitle(...parts: (string | null | undefined)[]): string {
  return [...parts.map((part) => part?.trim()).filter(Boolean), PRODUCT].join(" · ");
}

/**
 * Sets `document.title` while the page is shown, so tabs, history and screen readers tell the pages apart:
 * `useDocumentTitle("Users", "Acme")` gives "Users · Acme · Gatehouse". Parts that are not known yet (a user
 * still loading) may be null.
 */
export function useDocumentTitle(...parts: (string | null | undefined)[]): void {
  const title = documentTitle(...parts);
  useEffect(() => {
    document.title = title;
  }, [title]);
}

/** `useDocumentTitle` for a page of the open project: "Users · <project> · Gatehouse". */
export function usePageTitle(...parts: (string | null | undefined)[]): void {
  const { project } = useProjectContext();
  useDocumentTitle(...parts, project.displayName);
}

/** `usePageTitle` as an element, for titles known only once something loaded (a user's name). */
export function PageTitle({ parts }: { parts: (string | null | undefined)[] }): null {
  usePageTitle(...parts);
  return null;
}
