/** What the sign-in card hands each of its forms (password, email code, passkey). */
export type SignInFormProps = {
  noRedirect?: boolean | undefined;
  /** Told when a sign-in starts (true) and when it failed (false). */
  track: (signingIn: boolean) => void;
  onSuccess: () => void;
};
