import { type DependencyList, useEffect, useState } from "react";
import { Button } from "./button.tsx";
import { useKitStyles } from "./kit-styles.ts";

/**
 * Pages of a cursor-paged list, walked forwards and back: the cursors of the pages shown so far, the last being the
 * current page's. Back to the first page whenever `resetOn` changes (a filter).
 */
export function useCursorPages(resetOn: DependencyList = []) {
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the caller's values decide when to start over
  useEffect(() => setCursors([undefined]), resetOn);
  return {
    /** The current page's cursor; undefined on the first page. */
    cursor: cursors[cursors.length - 1],
    /** 1 for the first page. */
    page: cursors.length,
    previous: cursors.length > 1 ? () => setCursors(cursors.slice(0, -1)) : null,
    /** The next page, when the current one's answer has a next cursor. */
    next: (nextCursor: string | null | undefined) =>
      nextCursor ? () => setCursors([...cursors, nextCursor]) : null,
    reset: () => setCursors([undefined]),
  };
}

/** "Page 2 of 5", Previous, Next: a null handler disables its button. */
export function Pager(props: {
  page: number;
  pageCount?: number | null;
  onPrevious: (() => void) | null;
  onNext: (() => void) | null;
}) {
  useKitStyles();
  return (
    <>
      <span className="gh-pager-label">
        Page {props.page}
        {props.pageCount ? ` of ${props.pageCount}` : ""}
      </span>
      <Button variant="secondary" small disabled={!props.onPrevious} onClick={() => props.onPrevious?.()}>
        Previous
      </Button>
      <Button variant="secondary" small disabled={!props.onNext} onClick={() => props.onNext?.()}>
        Next
      </Button>
    </>
  );
}
