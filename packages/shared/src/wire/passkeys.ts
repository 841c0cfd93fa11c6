/** Passkey ceremonies (PROTOCOL.md §4.8): WebAuthn options as JSON (binary fields base64url) and their code. */

export type WirePasskeyCredentialDescriptor = { id: string; type: "public-key"; transports?: string[] };

/** The fields the SDK rewrites; the rest is handed to WebAuthn as the server sent it. */
export type WirePasskeyRegistrationOptions = {
  challenge: string;
  rp: { id?: string; name: string };
  user: { id: string; name: string; displayName: string };
  excludeCredentials?: WirePasskeyCredentialDescriptor[];
  [option: string]: unknown;
};

export type WirePasskeyAuthenticationOptions = {
  challenge: string;
  allowCredentials?: WirePasskeyCredentialDescriptor[];
  [option: string]: unknown;
};

/** `POST /auth/passkey/initiate-passkey-{registration,authentication}`. */
export type WirePasskeyCeremony<Options> = { options_json: Options; code: string };
