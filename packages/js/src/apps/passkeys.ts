import type {
  WirePasskeyAuthenticationOptions,
  WirePasskeyCeremony,
  WirePasskeyCredentialDescriptor,
  WirePasskeyRegistrationOptions,
} from "@gatehouse/shared";
import { KnownError } from "@gatehouse/shared";
import type { Session } from "../session/session.ts";
import { Result } from "../utils/result.ts";
import type { AppContext } from "./context.ts";
import { expectErrors, signInThrough } from "./sign-in.ts";

/** The relying-party id the server puts in the options; the browser's hostname replaces it (PROTOCOL.md §4.8). */
export const RP_ID_PLACEHOLDER = "THIS_VALUE_WILL_BE_REPLACED.example.com";

function fromBase64Url(value: string): ArrayBuffer {
  const base64 = value.replace(/-/g, "+").replace(/_/g, "/");
  const binary = atob(base64 + "=".repeat((4 - (base64.length % 4)) % 4));
  return Uint8Array.from(binary, (char) => char.charCodeAt(0)).buffer;
}

function toBase64Url(buffer: ArrayBuffer | null | undefined): string | undefined {
  if (!buffer) return undefined;
  let binary = "";
  for (const byte of new Uint8Array(buffer)) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function assertWebAuthn(): void {
  if (
    typeof navigator === "undefined" ||
    !navigator.credentials ||
    typeof PublicKeyCredential === "undefined"
  ) {
    throw new Error("This browser does not support passkeys (WebAuthn).");
  }
}

function webAuthnError(error: unknown): KnownError {
  const name = error instanceof Error ? error.name : "Error";
  const message = error instanceof Error ? error.message : String(error);
  // The browser's own message: the catalogue's wording would bring every message into the bundle.
  return new KnownError("PASSKEY_WEBAUTHN_ERROR", { message, code: name }, message);
}

function credentialDescriptors(list: WirePasskeyCredentialDescriptor[] | undefined) {
  // Transports are WebAuthn's names as the server stored them from the browser.
  return list?.map((item) => ({ ...item, id: fromBase64Url(item.id) }) as PublicKeyCredentialDescriptor);
}

/** Registers a passkey for the signed-in user. */
export function registerPasskey(ctx: AppContext, session: Session, options: { hostname?: string } = {}) {
  return expectErrors(["PASSKEY_REGISTRATION_FAILED", "PASSKEY_WEBAUTHN_ERROR"], async () => {
    assertWebAuthn();
    const initiated = await ctx.call<WirePasskeyCeremony<WirePasskeyRegistrationOptions>>(
      "/auth/passkey/initiate-passkey-registration",
      {
        method: "POST",
        body: {},
        accessType: "client",
        session,
      },
    );
    const json = initiated.options_json;
    const userId = fromBase64Url(json.user.id);
    if (userId.byteLength < 1 || userId.byteLength > 64) {
      throw new KnownError(
        "PASSKEY_REGISTRATION_FAILED",
        undefined,
        "The user id must be 1 to 64 bytes long.",
      );
    }
    if (json.rp?.id !== RP_ID_PLACEHOLDER) {
      throw new KnownError("PASSKEY_REGISTRATION_FAILED", undefined, "The server sent an unexpected RP id.");
    }
    let credential: PublicKeyCredential;
    try {
      credential = (await navigator.credentials.create({
        publicKey: {
          ...json,
          rp: { ...json.rp, id: options.hostname ?? window.location.hostname },
          challenge: fromBase64Url(json.challenge),
          user: { ...json.user, id: userId },
          excludeCredentials: credentialDescriptors(json.excludeCredentials) ?? [],
          // The rest of WebAuthn's options (pubKeyCredParams, ...) come as the server sent them.
        } as PublicKeyCredentialCreationOptions,
      })) as PublicKeyCredential;
    } catch (error) {
      throw webAuthnError(error);
    }
    const response = credential.response as AuthenticatorAttestationResponse;
    await ctx.call("/auth/passkey/register", {
      method: "POST",
      accessType: "client",
      session,
      body: {
        code: initiated.code,
        credential: {
          id: credential.id,
          rawId: toBase64Url(credential.rawId),
          type: credential.type,
          authenticatorAttachment: credential.authenticatorAttachment ?? undefined,
          clientExtensionResults: credential.getClientExtensionResults(),
          response: {
            clientDataJSON: toBase64Url(response.clientDataJSON),
            attestationObject: toBase64Url(response.attestationObject),
            transports: response.getTransports?.() ?? [],
          },
        },
      },
    });
    ctx.invalidateUserData();
    return undefined;
  });
}

/** Signs in with a passkey (a discoverable credential of this site). */
export async function signInWithPasskey(ctx: AppContext, options: { noRedirect?: boolean } = {}) {
  assertWebAuthn();
  const initiated = await ctx.call<WirePasskeyCeremony<WirePasskeyAuthenticationOptions>>(
    "/auth/passkey/initiate-passkey-authentication",
    {
      method: "POST",
      body: {},
      accessType: "client",
    },
  );
  const json = initiated.options_json;
  let credential: PublicKeyCredential;
  try {
    credential = (await navigator.credentials.get({
      publicKey: {
        ...json,
        rpId: window.location.hostname,
        challenge: fromBase64Url(json.challenge),
        allowCredentials: credentialDescriptors(json.allowCredentials) ?? [],
      },
    })) as PublicKeyCredential;
  } catch (error) {
    return Result.error(webAuthnError(error));
  }
  const response = credential.response as AuthenticatorAssertionResponse;
  return signInThrough(
    ctx,
    "/auth/passkey/sign-in",
    {
      code: initiated.code,
      authentication_response: {
        id: credential.id,
        rawId: toBase64Url(credential.rawId),
        type: credential.type,
        clientExtensionResults: credential.getClientExtensionResults(),
        response: {
          clientDataJSON: toBase64Url(response.clientDataJSON),
          authenticatorData: toBase64Url(response.authenticatorData),
          signature: toBase64Url(response.signature),
          userHandle: toBase64Url(response.userHandle),
        },
      },
    },
    ["PASSKEY_AUTHENTICATION_FAILED", "INVALID_TOTP_CODE", "PASSKEY_WEBAUTHN_ERROR"],
    options,
  );
}
