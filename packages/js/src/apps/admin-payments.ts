/**
 * The admin app's payments reads (PROTOCOL-EXTRA §2.5): `listTransactions` answers `GET /internal/payments/transactions`
 * with the transactions as the wire has them (snake_case, like the reference's `Transaction` in stack-shared's
 * crud/transactions), so a dashboard written against that shape reads them unchanged.
 */
import { isKnownError } from "@gatehouse/shared";
import type { CustomerType } from "../objects/customers.ts";
import { call, type Scope, withQuery } from "../objects/scope.ts";

export type TransactionType =
  | "purchase"
  | "subscription-cancellation"
  | "subscription-renewal"
  | "manual-item-quantity-change"
  | "chargeback"
  | "product-change";

/** One entry of a transaction; `type` says which further fields it has (PROTOCOL-EXTRA §2.5). */
export type TransactionEntry = {
  type:
    | "money_transfer"
    | "item_quantity_change"
    | "product_grant"
    | "product_revocation"
    | "product_revocation_reversal";
  adjusted_transaction_id: string | null;
  adjusted_entry_index: number | null;
  customer_type?: CustomerType;
  customer_id?: string;
  [field: string]: unknown;
};

export type Transaction = {
  id: string;
  created_at_millis: number;
  effective_at_millis: number;
  type: TransactionType | null;
  entries: TransactionEntry[];
  adjusted_by: { transaction_id: string; entry_index: number }[];
  test_mode: boolean;
};

export type ListTransactionsOptions = {
  /** The `nextCursor` of the previous page. */
  cursor?: string;
  /** 1-200; 50 by default. */
  limit?: number;
  type?: TransactionType;
  customerType?: CustomerType;
  /** Gatehouse extension: one customer's transactions. */
  customerId?: string;
};

/** The project's Stripe account as Stripe reports it. */
export type StripeAccountInfo = {
  accountId: string;
  chargesEnabled: boolean;
  detailsSubmitted: boolean;
  payoutsEnabled: boolean;
};

export function paymentAdminMethods(scope: Scope) {
  return {
    /** Connects the project's Stripe account (created on the first call): the URL of Stripe's onboarding. */
    async setupPayments(): Promise<{ url: string }> {
      return call<{ url: string }>(scope, "/internal/payments/setup", { method: "POST", body: {} });
    },
    /** The connected Stripe account's state; null while none is connected. */
    async getStripeAccountInfo(): Promise<StripeAccountInfo | null> {
      try {
        const info = await call<{
          account_id: string;
          charges_enabled: boolean;
          details_submitted: boolean;
          payouts_enabled: boolean;
        }>(scope, "/internal/payments/stripe/account-info");
        return {
          accountId: info.account_id,
          chargesEnabled: info.charges_enabled,
          detailsSubmitted: info.details_submitted,
          payoutsEnabled: info.payouts_enabled,
        };
      } catch (error) {
        if (isKnownError(error, "STRIPE_ACCOUNT_INFO_NOT_FOUND")) return null;
        throw error;
      }
    },
    /** A client secret for Stripe's embedded components (payments, payouts, notifications). */
    async createStripeWidgetAccountSession(): Promise<{ clientSecret: string }> {
      const session = await call<{ client_secret: string }>(
        scope,
        "/internal/payments/stripe-widgets/account-session",
        {
          method: "POST",
          body: {},
        },
      );
      return { clientSecret: session.client_secret };
    },
    /** The project's purchases and item quantity changes, newest first, a page at a time. */
    async listTransactions(
      options: ListTransactionsOptions = {},
    ): Promise<{ transactions: Transaction[]; nextCursor: string | null }> {
      const result = await call<{ transactions: Transaction[]; next_cursor: string | null }>(
        scope,
        withQuery("/internal/payments/transactions", {
          cursor: options.cursor,
          limit: options.limit,
          type: options.type,
          customer_type: options.customerType,
          customer_id: options.customerId,
        }),
      );
      return { transactions: result.transactions, nextCursor: result.next_cursor ?? null };
    },
  };
}
