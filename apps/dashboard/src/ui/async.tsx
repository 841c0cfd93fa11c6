import type { DependencyList, ReactNode } from "react";
import { Card, Empty, ErrorAlert, Loading, PageHead } from "./components.tsx";
import { type AsyncState, useAsync } from "./hooks.ts";

/** Lists are empty when they have no items; anything else loaded is never empty unless the caller says so. */
function isEmptyList(data: unknown): boolean {
  return Array.isArray(data) && data.length === 0;
}

/**
 * The ladder every loaded block climbs: the error (with a retry) first, so a failed reload is not hidden behind
 * the data shown before it; a skeleton until the first answer; `empty` when there is nothing to list; else the
 * content. `padError` puts the error inside the card's padding when the card itself has none (flush cards).
 */
export function AsyncBody<T>(props: {
  state: AsyncState<T>;
  rows?: number;
  empty?: ReactNode;
  isEmpty?: (data: T) => boolean;
  padError?: boolean;
  children: (data: T) => ReactNode;
}) {
  const { state } = props;
  if (state.error) {
    const alert = <ErrorAlert error={state.error} retry={state.reload} />;
    return props.padError ? <div className="card-body">{alert}</div> : alert;
  }
  if (state.data === undefined) return <Loading rows={props.rows ?? 4} />;
  if (props.empty !== undefined && (props.isEmpty ?? isEmptyList)(state.data)) return <>{props.empty}</>;
  return <>{props.children(state.data)}</>;
}

/**
 * A card whose body loads. Flush cards let a table run to the card's edges; `toolbar` is a row above their body (a
 * search field). `after` is content below the loaded part that does not wait for it (an "add" form).
 */
export function AsyncCard<T>({
  state,
  rows,
  empty,
  isEmpty,
  children,
  toolbar,
  after,
  ...card
}: {
  state: AsyncState<T>;
  title?: ReactNode;
  description?: ReactNode;
  actions?: ReactNode;
  footer?: ReactNode;
  toolbar?: ReactNode;
  after?: ReactNode;
  flush?: boolean;
  testId?: string;
  rows?: number;
  empty?: ReactNode;
  isEmpty?: (data: T) => boolean;
  children: (data: T) => ReactNode;
}) {
  return (
    <Card {...card}>
      {toolbar ? <div className="card-head">{toolbar}</div> : null}
      <AsyncBody state={state} rows={rows} empty={empty} isEmpty={isEmpty} padError={card.flush}>
        {children}
      </AsyncBody>
      {after}
    </Card>
  );
}

/**
 * A page about one thing loaded by id (a user, a team): a skeleton while it loads, the error with a retry, a
 * "not found" page with the way back when the id names nothing (it may have been deleted), else the page.
 */
export function DetailPage<T>(props: {
  /** What the page shows, in lower case: "user" gives "User not found". */
  noun: string;
  load: () => Promise<T | null>;
  deps: DependencyList;
  crumb: ReactNode;
  children: (thing: T, reload: () => Promise<void>) => ReactNode;
}) {
  const state = useAsync(props.load, props.deps);
  if (state.error) return <ErrorAlert error={state.error} retry={state.reload} />;
  if (state.data === undefined) return <Loading rows={8} />;
  if (state.data === null) {
    const title = `${props.noun[0]!.toUpperCase()}${props.noun.slice(1)} not found`;
    return (
      <>
        <PageHead crumb={props.crumb} title={title} />
        <Empty title={`This ${props.noun} does not exist`}>It may have been deleted.</Empty>
      </>
    );
  }
  return <>{props.children(state.data, state.reload)}</>;
}
