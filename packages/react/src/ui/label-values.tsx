import type { ReactNode } from "react";
import { useKitStyles } from "./kit-styles.ts";

/** One fact of a thing: its label, its value, and a test id for the value where a test reads it. */
export type LabelValue = { label: ReactNode; value: ReactNode; testId?: string; className?: string };

/** Facts about one thing as label / value rows (a description list): labels in a column, values beside them. */
export function LabelValues({ rows }: { rows: Array<LabelValue | null | false> }) {
  useKitStyles();
  return (
    <dl className="gh-label-values">
      {rows.map((row, index) =>
        row ? (
          // biome-ignore lint/suspicious/noArrayIndexKey: the rows are a fixed list written in place
          <div className="gh-label-value" key={index}>
            <dt>{row.label}</dt>
            <dd data-testid={row.testId} className={row.className}>
              {row.value}
            </dd>
          </div>
        ) : null,
      )}
    </dl>
  );
}
