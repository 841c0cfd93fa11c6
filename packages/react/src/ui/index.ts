// @gatehouse/react/ui: the UI kit the package's own components draw with, shared with the Gatehouse dashboard and
// open to apps: buttons, spinners, avatars, dates, lists with row actions, label / value rows, a cursor pager.
// Its classes are the package's `gh-*` ones; colours come from the `--gh-*` variables (GATEHOUSE_CSS or
// gatehouseTokensCss).
export { Avatar, avatarColor, initials } from "./avatar.tsx";
export { Button, type ButtonProps, type ButtonVariant, buttonClass, Loading, Spinner } from "./button.tsx";
export { formatDate, formatDay } from "./dates.ts";
export { type LabelValue, LabelValues } from "./label-values.tsx";
export { List, ListRow } from "./list.tsx";
export { amountsLine, CURRENCIES, type Currency, formatAmount, priceAmounts } from "./money.ts";
export { Pager, useCursorPages } from "./pager.tsx";
export { injectStyleSheet } from "./style-sheet.ts";
