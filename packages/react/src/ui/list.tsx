import type { LiHTMLAttributes, ReactNode } from "react";

/**
 * A bordered list of things, one row each: a leading picture or icon, a title with its badges, a line of detail,
 * and the row's actions at the end (they wrap under it on a narrow screen).
 */
export function List({ label, children }: { label?: string; children: ReactNode }) {
  return (
    <ul className="gh-list" aria-label={label}>
      {children}
    </ul>
  );
}

/** One row of a List; other attributes (`data-*`) go on its <li>. */
export function ListRow({
  leading,
  title,
  meta,
  actions,
  ...attributes
}: Omit<LiHTMLAttributes<HTMLLIElement>, "title"> & {
  leading?: ReactNode;
  title: ReactNode;
  meta?: ReactNode;
  actions?: ReactNode;
}) {
  return (
    <li className="gh-list-item" {...attributes}>
      {leading}
      <div className="gh-list-main">
        <span className="gh-list-title">{title}</span>
        {meta ? <span className="gh-list-meta">{meta}</span> : null}
      </div>
      {actions}
    </li>
  );
}
