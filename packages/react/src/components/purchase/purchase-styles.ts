/**
 * The purchase page's own rules, on top of the package's stylesheet (its card, fields and buttons): injected by the
 * page itself, so the main entry's stylesheet does not carry them.
 */
export const PURCHASE_STYLE_ELEMENT_ID = "gatehouse-purchase-styles";

export const PURCHASE_CSS = `
.purchase-root {
  min-height: 100vh;
}
.purchase-card {
  max-width: 460px;
}
.purchase-test-banner {
  display: flex;
  flex-direction: column;
  gap: 2px;
  margin: -32px -32px 0;
  padding: 12px 32px;
  border-radius: var(--gh-radius) var(--gh-radius) 0 0;
  background: var(--gh-warning-soft);
  border-bottom: 1px solid var(--gh-warning-border);
  color: var(--gh-warning);
  font-size: 13px;
}
.purchase-test-banner strong {
  letter-spacing: 0.12em;
  font-size: 12px;
}
.purchase-test-banner span {
  color: var(--gh-text);
}
@media (max-width: 480px) {
  .purchase-test-banner {
    margin: -24px -20px 0;
    padding: 12px 20px;
  }
}
.purchase-project {
  display: flex;
  align-items: center;
  gap: 10px;
  color: var(--gh-text-muted);
  font-weight: 550;
}
.purchase-logo {
  height: 32px;
  max-width: 140px;
  object-fit: contain;
}
.purchase-initial {
  width: 32px;
  height: 32px;
  border-radius: 9px;
  display: inline-flex;
  align-items: center;
  justify-content: center;
  background: var(--gh-primary);
  color: var(--gh-primary-text);
  font-weight: 700;
}
.purchase-includes {
  margin-top: 8px;
  display: flex;
  flex-direction: column;
  gap: 4px;
  color: var(--gh-text-muted);
}
.purchase-includes li {
  display: flex;
  align-items: center;
  gap: 8px;
}
.purchase-includes svg {
  color: var(--gh-success);
}
.purchase-warning {
  background: var(--gh-warning-soft);
  border-color: var(--gh-warning-border);
  color: var(--gh-warning);
}
.purchase-prices {
  border: 0;
  margin: 0;
  padding: 0;
  display: flex;
  flex-direction: column;
  gap: 8px;
  min-width: 0;
}
.purchase-prices legend {
  padding: 0;
  margin-bottom: 8px;
}
.purchase-price {
  display: flex;
  align-items: center;
  gap: 12px;
  padding: 12px 14px;
  border: 1px solid var(--gh-border-strong);
  border-radius: var(--gh-radius-sm);
  cursor: pointer;
  background: var(--gh-surface);
}
.purchase-price:hover {
  background: var(--gh-surface-hover);
}
.purchase-price[data-selected="true"] {
  border-color: var(--gh-primary);
  background: var(--gh-primary-soft);
}
.purchase-price input {
  accent-color: var(--gh-primary);
  width: 16px;
  height: 16px;
  margin: 0;
}
.purchase-price-text {
  display: flex;
  align-items: center;
  gap: 6px;
  flex-wrap: wrap;
}
`;

export function injectPurchaseStyles(doc: Document = document): void {
  if (doc.getElementById(PURCHASE_STYLE_ELEMENT_ID)) return;
  const style = doc.createElement("style");
  style.id = PURCHASE_STYLE_ELEMENT_ID;
  style.textContent = PURCHASE_CSS;
  doc.head.append(style);
}
