/**
 * An error answered as plain text with a status (PROTOCOL.md §2.2), for the few protocol answers that are not
 * known errors, e.g. `403 OTP sign-in is not enabled for this project`, or a 429 with Retry-After.
 */
export class StatusError extends Error {
  override readonly name = "StatusError";
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}
