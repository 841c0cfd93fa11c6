import type {
  WireContactChannel,
  WireContactChannelCreate,
  WireContactChannelUpdate,
  WireList,
} from "@gatehouse/shared";
import { absoluteUrl, currentOrigin } from "../apps/urls.ts";
import { call, defined, type Scope, seg, withQuery } from "./scope.ts";

export type ContactChannelCreateOptions = {
  value: string;
  type: "email";
  usedForAuth: boolean;
  isPrimary?: boolean;
};
export type ServerContactChannelCreateOptions = ContactChannelCreateOptions & { isVerified?: boolean };
export type ContactChannelUpdateOptions = { value?: string; usedForAuth?: boolean; isPrimary?: boolean };
export type ServerContactChannelUpdateOptions = ContactChannelUpdateOptions & { isVerified?: boolean };

/** An email address of a user (PROTOCOL.md §3.6). */
export type ContactChannel = {
  readonly id: string;
  readonly value: string;
  readonly type: "email";
  readonly isPrimary: boolean;
  readonly isVerified: boolean;
  readonly usedForAuth: boolean;
  sendVerificationEmail(options?: { callbackUrl?: string }): Promise<void>;
  update(update: ServerContactChannelUpdateOptions): Promise<void>;
  delete(): Promise<void>;
};

function channelUpdateToWire(update: ServerContactChannelUpdateOptions): WireContactChannelUpdate {
  return defined<WireContactChannelUpdate>({
    value: update.value,
    used_for_auth: update.usedForAuth,
    is_primary: update.isPrimary,
    is_verified: update.isVerified,
  });
}

/** The email-verification callback: the given URL, or the app's handler page made absolute. */
export function verificationCallbackUrl(scope: Scope, given: string | undefined): string {
  return absoluteUrl(
    given ?? scope.ctx.urls.emailVerification,
    currentOrigin(),
    "The email verification callback URL",
  );
}

/** `userId` is `me` for a client's own channels, or a user id for a server. */
export function contactChannelFromJson(
  scope: Scope,
  userId: string,
  json: WireContactChannel,
): ContactChannel {
  const base = `/contact-channels/${seg(userId)}/${seg(json.id)}`;
  const changed = () => scope.ctx.invalidateUserData();
  return {
    id: json.id,
    value: json.value,
    type: json.type,
    isPrimary: json.is_primary === true,
    isVerified: json.is_verified === true,
    usedForAuth: json.used_for_auth === true,
    async sendVerificationEmail(options = {}) {
      await call(scope, `${base}/send-verification-code`, {
        method: "POST",
        body: { callback_url: verificationCallbackUrl(scope, options.callbackUrl) },
      });
    },
    async update(update) {
      await call(scope, base, { method: "PATCH", body: channelUpdateToWire(update) });
      changed();
    },
    async delete() {
      await call(scope, base, { method: "DELETE" });
      changed();
    },
  };
}

export async function listContactChannels(scope: Scope, userId: string): Promise<ContactChannel[]> {
  const result = await call<WireList<WireContactChannel>>(
    scope,
    withQuery("/contact-channels", { user_id: userId }),
  );
  return result.items.map((item) => contactChannelFromJson(scope, userId, item));
}

export async function createContactChannel(
  scope: Scope,
  userId: string,
  options: ServerContactChannelCreateOptions,
): Promise<ContactChannel> {
  const json = await call<WireContactChannel>(scope, "/contact-channels", {
    method: "POST",
    body: defined<WireContactChannelCreate>({
      user_id: userId,
      value: options.value,
      type: options.type,
      used_for_auth: options.usedForAuth,
      is_primary: options.isPrimary,
      is_verified: options.isVerified,
    }),
  });
  scope.ctx.invalidateUserData();
  return contactChannelFromJson(scope, userId, json);
}
