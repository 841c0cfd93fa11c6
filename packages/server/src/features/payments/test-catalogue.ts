/**
 * The payments catalogue the tests configure. A module of its own, importing nothing: the React and dashboard tests
 * read it in happy-dom and a browser bundle, where the server's test kit (test-support.ts) cannot load.
 */
/** Credits for users, seats for teams, and products that include them. */
export const TEST_CATALOGUE = {
  "payments.items": {
    credits: { displayName: "Credits", customerType: "user" },
    seats: { displayName: "Seats", customerType: "team" },
  },
  "payments.productLines": { plans: { displayName: "Plans", customerType: "user" } },
  "payments.products": {
    starter: {
      displayName: "Starter",
      productLineId: "plans",
      prices: { monthly: { USD: "9", interval: [1, "month"] } },
      includedItems: { credits: { quantity: 100, repeat: [1, "month"], expires: "when-repeated" } },
    },
    pro: {
      displayName: "Pro",
      productLineId: "plans",
      prices: { monthly: { USD: "29", interval: [1, "month"] }, internal: { USD: "1", serverOnly: true } },
      includedItems: { credits: { quantity: 1000, repeat: [1, "month"], expires: "when-repeated" } },
    },
    "credit-pack": {
      displayName: "Credit pack",
      stackable: true,
      prices: { once: { USD: "5" } },
      includedItems: { credits: { quantity: 50, expires: "never" } },
    },
    lifetime: { displayName: "Lifetime", prices: { once: { USD: "99" } } },
    "team-plan": {
      displayName: "Team plan",
      customerType: "team",
      prices: { monthly: { USD: "49", interval: [1, "month"] } },
      includedItems: { seats: { quantity: 5, expires: "when-purchase-expires" } },
    },
    hidden: { displayName: "Hidden", serverOnly: true, prices: { once: { USD: "1" } } },
  },
};
