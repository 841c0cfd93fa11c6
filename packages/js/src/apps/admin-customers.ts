/**
 * What the admin does to any customer's payments beyond what a server does (objects/customers.ts): an item's
 * quantity changed by a delta with a note for the ledger, and a subscription of any customer cancelled (the
 * client app's `cancelSubscription` only names the signed-in user or one of their teams).
 */
import { type CustomerOptions, cancelSubscription, customerOf } from "../objects/customers.ts";
import { call, defined, type Scope, seg, withQuery } from "../objects/scope.ts";

export function adminCustomerMethods(scope: Scope) {
  return {
    /**
     * Adds `delta` (negative: removes) to a customer's item. Without `allowNegative`, a change that would take the
     * quantity below zero fails with ITEM_QUANTITY_INSUFFICIENT_AMOUNT and changes nothing.
     */
    async changeItemQuantity(
      options: CustomerOptions & {
        itemId: string;
        delta: number;
        description?: string;
        allowNegative?: boolean;
      },
    ): Promise<void> {
      const customer = customerOf(options);
      await call(
        scope,
        withQuery(
          `/payments/items/${seg(customer.type)}/${seg(customer.id)}/${seg(options.itemId)}/update-quantity`,
          {
            allow_negative: options.allowNegative === true,
          },
        ),
        {
          method: "POST",
          body: defined({ delta: options.delta, description: options.description || undefined }),
        },
      );
      scope.ctx.invalidateUserData();
    },
    /** Ends a customer's subscription to a product at the end of its period (the one given, or all active ones). */
    cancelCustomerSubscription(
      options: CustomerOptions & { productId: string; subscriptionId?: string },
    ): Promise<void> {
      return cancelSubscription(scope, customerOf(options), options);
    },
  };
}
