// @gatehouse/react/purchase: the end user's purchase page (PROTOCOL-EXTRA §2.4), kept out of the main entry; the
// server's `/purchase/<code>` address renders it (the dashboard serves that address).
export { PurchasePage, PurchasePaidPage } from "./purchase-page.tsx";
export { decodedCode } from "./purchase-words.ts";
