import { type FormEvent, useState } from "react";
import { useStrings } from "../context.ts";
import { useGatehouseApp } from "../hooks.ts";
import { describeError } from "../internal/errors.ts";
import { EmailField, Form, TextField } from "../internal/fields.tsx";
import { Alert, Button } from "../internal/ui.tsx";
import { useFormAction } from "../internal/use-action.ts";
import { type Errors, hasErrors, OTP_LENGTH, validateEmail } from "../internal/validation.ts";
import type { SignInFormProps } from "./sign-in-form-props.ts";

/**
 * Sign-in with a one-time code by e-mail: first the address, then the 6 characters from the e-mail (the rest of
 * the code, the nonce, came back when it was sent). The e-mail's link works as well, on the magic-link page.
 */
export function EmailCodeForm({ noRedirect, track, onSuccess }: SignInFormProps) {
  const s = useStrings();
  const app = useGatehouseApp();
  const [email, setEmail] = useState("");
  const [sent, setSent] = useState<{ email: string; nonce: string } | null>(null);
  const [code, setCode] = useState("");
  const [errors, setErrors] = useState<Errors<"email" | "code">>({});
  const action = useFormAction({ onThrow: () => track(false) });
  const failed = action.placed(["email"]);

  const send = (address: string) =>
    action.run(async () => {
      const result = await app.sendMagicLinkEmail(address);
      if (result.status === "error") {
        action.fail(result.error);
        return;
      }
      setSent({ email: address, nonce: result.data.nonce });
      setCode("");
      setErrors({});
    });

  const onSendSubmit = () => {
    const found = { email: validateEmail(email, s) };
    setErrors(found);
    if (hasErrors(found)) return action.reset();
    void send(email.trim());
  };

  const onCodeSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (!sent) return;
    const typed = code.replace(/\s+/g, "");
    const found = {
      code: typed === "" ? s.required : typed.length !== OTP_LENGTH ? s.codeLength(OTP_LENGTH) : undefined,
    };
    setErrors(found);
    if (hasErrors(found)) return action.reset();
    void action.run(async () => {
      track(true);
      // The SDK moves on by itself: to after-sign-up for a new user, after-sign-in otherwise.
      const result = await app.signInWithMagicLink(typed.toLowerCase() + sent.nonce, {
        noRedirect: noRedirect ?? false,
      });
      if (result.status === "error") {
        if (result.error.code === "MULTI_FACTOR_AUTHENTICATION_REQUIRED") return;
        track(false);
        const described = describeError(result.error, s);
        setErrors({ [described.field === "code" ? "code" : "form"]: described.message });
        return;
      }
      onSuccess();
    });
  };

  if (!sent) {
    return (
      <Form
        onSubmit={onSendSubmit}
        error={errors.form ?? failed.form}
        submitLabel={s.sendCode}
        pending={action.pending}
      >
        <EmailField value={email} onValueChange={setEmail} error={errors.email ?? failed.email} />
      </Form>
    );
  }

  return (
    <form className="gh-form" onSubmit={onCodeSubmit} noValidate>
      <Alert tone="info" title={s.codeSentTitle}>
        {s.codeSentTo(sent.email)}
      </Alert>
      {errors.form || action.error ? <Alert>{errors.form ?? action.error}</Alert> : null}
      <TextField
        label={s.codeLabel}
        name="code"
        autoComplete="one-time-code"
        autoCapitalize="characters"
        spellCheck={false}
        maxLength={OTP_LENGTH}
        inputClassName="gh-input-code"
        value={code}
        onValueChange={(value) => setCode(value.toUpperCase())}
        error={errors.code}
        autoFocus
      />
      <Button type="submit" block loading={action.pending}>
        {s.signInButton}
      </Button>
      <div className="gh-row-actions" style={{ justifyContent: "space-between" }}>
        <button type="button" className="gh-link gh-link-muted" onClick={() => setSent(null)}>
          {s.useAnotherEmail}
        </button>
        <button
          type="button"
          className="gh-link gh-link-muted"
          disabled={action.pending}
          onClick={() => send(sent.email)}
        >
          {s.resendCode}
        </button>
      </div>
    </form>
  );
}
