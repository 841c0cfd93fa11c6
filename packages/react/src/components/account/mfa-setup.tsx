import { type FormEvent, useEffect, useState } from "react";
import { useStrings } from "../../context.ts";
import { useProject, useUser } from "../../hooks.ts";
import { reportUnexpected } from "../../internal/errors.ts";
import { TextField } from "../../internal/fields.tsx";
import { base32, newTotpSecret, otpauthUri, verifyTotp } from "../../internal/totp.ts";
import { Alert, Button } from "../../internal/ui.tsx";
import { useAction, useFormAction } from "../../internal/use-action.ts";

async function qrDataUrl(text: string): Promise<string> {
  // Loaded on demand: only this screen needs the QR encoder.
  const qrcode = (await import("qrcode")).default;
  return qrcode.toDataURL(text, { margin: 1, width: 328, errorCorrectionLevel: "M" });
}

/**
 * Two-factor authentication: a new secret shown as a QR code, turned on only once the user has typed a code from
 * their app (so that nobody locks themself out with a secret their app never got).
 */
export function MfaSetup() {
  const s = useStrings();
  const user = useUser({ or: "throw", includeRestricted: true });
  const project = useProject();
  const [secret, setSecret] = useState<Uint8Array | null>(null);
  const [qr, setQr] = useState<string | null>(null);
  const [code, setCode] = useState("");
  // A code that does not match the new secret, found here before anything is stored.
  const [codeError, setCodeError] = useState<string>();
  const [done, setDone] = useState(false);
  const [run, pending] = useAction();
  const confirm = useFormAction();
  const error = codeError ?? confirm.error;

  useEffect(() => {
    if (!secret) return;
    let cancelled = false;
    qrDataUrl(otpauthUri(secret, project.displayName, user.primaryEmail ?? user.displayName ?? user.id))
      .then((url) => {
        if (!cancelled) setQr(url);
      })
      .catch(reportUnexpected);
    return () => {
      cancelled = true;
    };
  }, [secret, project.displayName, user.primaryEmail, user.displayName, user.id]);

  const onConfirm = (event: FormEvent) => {
    event.preventDefault();
    if (!secret) return;
    void confirm.run(async () => {
      if (!(await verifyTotp(secret, code.trim()))) {
        setCodeError(/^\d{6}$/.test(code.trim()) ? s.invalidTotp : s.mfaCodeFormat);
        return;
      }
      await user.update({ totpMultiFactorSecret: secret });
      setSecret(null);
      setQr(null);
      setCode("");
      setDone(true);
    });
  };

  return (
    <div className="gh-subsection">
      <div className="gh-subsection-text">
        <span className="gh-subsection-title">{s.mfaSection}</span>
        <span className="gh-muted">{user.isMultiFactorRequired ? s.mfaEnabled : s.mfaDescription}</span>
        {done && user.isMultiFactorRequired ? <Alert tone="success">{s.mfaTurnedOn}</Alert> : null}
      </div>
      {user.isMultiFactorRequired ? (
        <Button
          variant="danger-outline"
          loading={pending}
          onClick={() =>
            run(async () => {
              setDone(false);
              await user.update({ totpMultiFactorSecret: null });
            })
          }
        >
          {s.disableMfa}
        </Button>
      ) : secret ? (
        <form className="gh-stack" style={{ width: "100%" }} onSubmit={onConfirm} noValidate>
          <p className="gh-muted">{s.mfaScan}</p>
          <div className="gh-qr">
            {qr ? (
              <img src={qr} alt={s.mfaQrAlt} width={164} height={164} />
            ) : (
              <span className="gh-spinner gh-spinner-lg" />
            )}
            <div className="gh-stack-sm" style={{ flex: 1, minWidth: 200 }}>
              <span className="gh-label">{s.mfaSecretLabel}</span>
              <code className="gh-code-block" data-testid="totp-secret">
                {base32(secret)}
              </code>
            </div>
          </div>
          <div className="gh-inline-form">
            <TextField
              label={s.mfaCodeLabel}
              name="totp"
              inputMode="numeric"
              autoComplete="one-time-code"
              maxLength={6}
              value={code}
              onValueChange={(value) => {
                setCode(value.replace(/\D/g, ""));
                setCodeError(undefined);
                confirm.reset();
              }}
              error={error}
            />
          </div>
          <div className="gh-row-actions gh-row-actions-end">
            <Button variant="secondary" onClick={() => setSecret(null)}>
              {s.cancel}
            </Button>
            <Button type="submit" loading={confirm.pending}>
              {s.mfaConfirm}
            </Button>
          </div>
        </form>
      ) : (
        <Button
          variant="secondary"
          onClick={() => {
            setSecret(newTotpSecret());
            setCodeError(undefined);
            confirm.reset();
            setDone(false);
          }}
        >
          {s.enableMfa}
        </Button>
      )}
    </div>
  );
}
