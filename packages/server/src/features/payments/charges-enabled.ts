/**
 * Whether a project's connected Stripe account can take payments, as the public purchase page asks. Anyone holding a
 * purchase code may load that page as often as they like, and each load used to ask Stripe, whose API limits the
 * whole platform account (in live mode, about 100 reads a second across every project): one busy or hostile page
 * could spend that for everyone. So each process asks at most once a minute per account, and keeps what Stripe says
 * whenever it says it anyway (the owner's account-info read, an `account.updated` event).
 */
import type Stripe from "stripe";
import { LruCache } from "../../crypto/lru.ts";
import type { ServerEnv } from "../../env.ts";
import { stripeClient } from "./stripe.ts";

/** Onboarding finished a minute ago may show as "not yet" on a page loaded before it for that long, no longer. */
const FRESH_MS = 60_000;
/** Accounts are small entries; the bound keeps a server with many projects from growing without end. */
const known = new LruCache<string, { chargesEnabled: boolean; readAt: number }>(10_000);
/** Reads in flight, shared by the pages that ask meanwhile. */
const reading = new Map<string, Promise<boolean>>();

export async function accountChargesEnabled(
  env: Pick<ServerEnv, "stripe">,
  accountId: string,
  now: () => number = Date.now,
): Promise<boolean> {
  const entry = known.get(accountId);
  if (entry && now() - entry.readAt < FRESH_MS) return entry.chargesEnabled;
  let read = reading.get(accountId);
  if (!read) {
    read = readChargesEnabled(env, accountId, now).finally(() => reading.delete(accountId));
    reading.set(accountId, read);
  }
  return read;
}

/** The account as Stripe just described it, kept for the purchase page. */
export function rememberStripeAccount(
  account: Pick<Stripe.Account, "id" | "charges_enabled">,
  now: () => number = Date.now,
): void {
  known.set(account.id, { chargesEnabled: account.charges_enabled === true, readAt: now() });
}

async function readChargesEnabled(
  env: Pick<ServerEnv, "stripe">,
  accountId: string,
  now: () => number,
): Promise<boolean> {
  const stripe = await stripeClient(env);
  try {
    const account = await stripe.accounts.retrieve(accountId);
    rememberStripeAccount(account, now);
    return account.charges_enabled === true;
  } catch (error) {
    // The page then says payments are unavailable, which they are while Stripe cannot be read; not kept, so the
    // next load asks again.
    console.warn(
      `[payments] could not read Stripe account ${accountId}: ${error instanceof Error ? error.message : String(error)}`,
    );
    return false;
  }
}
