/**
 * The slice of oidc-provider 9 that the development OpenID provider uses. The package ships no types, and the
 * DefinitelyTyped ones are not installed, so only what `dev-provider.ts` touches is declared here.
 */
declare module "oidc-provider" {
  import type { IncomingMessage, ServerResponse } from "node:http";

  /** The Koa context handed to middleware registered with `provider.use`. */
  export type ProviderContext = {
    method: string;
    path: string;
    req: IncomingMessage;
    res: ServerResponse;
    status: number;
    type: string;
    body: unknown;
    set(name: string, value: string): void;
  };

  export type InteractionDetails = {
    uid: string;
    prompt: { name: string; details: Record<string, unknown> };
    params: Record<string, string | undefined>;
    session?: { accountId?: string };
  };

  export type InteractionResult =
    | {
        login?: { accountId: string; remember?: boolean };
        consent?: { grantId: string };
      }
    | { error: string; error_description?: string };

  export interface Grant {
    addOIDCScope(scope: string): void;
    addOIDCClaims(claims: string[]): void;
    save(): Promise<string>;
  }

  export class Provider {
    constructor(issuer: string, configuration?: Record<string, unknown>);
    readonly issuer: string;
    readonly Grant: new (init: {
      accountId: string;
      clientId: string;
    }) => Grant;
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    use(middleware: (ctx: ProviderContext, next: () => Promise<void>) => Promise<void>): void;
    on(event: string, listener: (...args: unknown[]) => void): this;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<InteractionDetails>;
    /** Stores the interaction's result and returns the URL to send the browser back to. */
    interactionResult(
      req: IncomingMessage,
      res: ServerResponse,
      result: InteractionResult,
      options?: { mergeWithLastSubmission?: boolean },
    ): Promise<string>;
  }

  export default Provider;
}
