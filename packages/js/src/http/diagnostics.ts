import { type ConnectionDiagnostics, ConnectionError } from "./errors.ts";
import type { Runtime } from "./runtime.ts";

/**
 * Builds the error for a request that never got an answer. It first asks `<baseUrl>/health` once, so the
 * message can say whether the machine is offline, the server is down, or only that one call failed.
 */
export async function connectionError(
  runtime: Runtime,
  baseUrl: string,
  method: string,
  url: string,
  cause: unknown,
): Promise<ConnectionError> {
  const healthUrl = `${baseUrl}/health`;
  const online = runtime.isOnline();
  let health = "not checked (offline)";
  if (online) {
    try {
      const response = await runtime.fetch(healthUrl, {
        method: "GET",
        cache: "no-store",
        credentials: "omit",
      });
      await response.body?.cancel().catch(() => {});
      health = response.ok ? "ok" : `status ${response.status}`;
    } catch (error) {
      health = error instanceof Error ? error.message : String(error);
    }
  }
  const diagnostics: ConnectionDiagnostics = { online, healthUrl, health };
  const reason = cause instanceof Error ? cause.message : String(cause);
  let message: string;
  if (!online) {
    message = `You are offline: ${method} ${url} could not be sent. Check your internet connection and try again.`;
  } else if (health === "ok") {
    message =
      `Gatehouse could not complete ${method} ${url} (${reason}), although the server's health check ` +
      `answers. The connection may have been interrupted; please try again.`;
  } else {
    message =
      `Gatehouse is unable to connect to the server at ${baseUrl}: ${method} ${url} failed (${reason}) and ` +
      `the health check ${healthUrl} gave: ${health}. Check that the server is running and that baseUrl is correct.`;
  }
  return new ConnectionError(message, diagnostics, { cause });
}
