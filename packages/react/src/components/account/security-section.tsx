import { useState } from "react";
import { useStrings } from "../../context.ts";
import { useGatehouseApp, useProject, useUser } from "../../hooks.ts";
import { describeError, reportUnexpected } from "../../internal/errors.ts";
import { FingerprintIcon } from "../../internal/icons.tsx";
import { Alert, Button, Section, Switch } from "../../internal/ui.tsx";
import { useAction } from "../../internal/use-action.ts";
import { MfaSetup } from "./mfa-setup.tsx";
import { PasswordForm } from "./password-form.tsx";

export function SecuritySection() {
  const s = useStrings();
  const project = useProject();
  return (
    <Section id="security" title={s.sectionSecurity}>
      {project.config.credentialEnabled ? <PasswordForm /> : null}
      {project.config.passkeyEnabled ? <PasskeySettings /> : null}
      <MfaSetup />
      {project.config.magicLinkEnabled ? <OtpSetting /> : null}
    </Section>
  );
}

function PasskeySettings() {
  const s = useStrings();
  const app = useGatehouseApp();
  const user = useUser({ or: "throw", includeRestricted: true });
  const [status, setStatus] = useState<{ error?: string; info?: string }>({});
  const [run, pending] = useAction();
  return (
    <div className="gh-subsection">
      <div className="gh-subsection-text">
        <span className="gh-subsection-title">{s.passkeysSection}</span>
        <span className="gh-muted">
          {user.passkeyAuthEnabled ? s.passkeyRegistered : s.passkeysDescription}
        </span>
        {status.error ? <Alert>{status.error}</Alert> : null}
        {status.info ? <Alert tone="success">{status.info}</Alert> : null}
      </div>
      <div className="gh-row-actions">
        {user.passkeyAuthEnabled ? (
          <Button
            variant="ghost"
            disabled={pending}
            onClick={() => run(() => user.update({ passkeyAuthEnabled: false }))}
          >
            {s.disablePasskeys}
          </Button>
        ) : null}
        <Button
          variant="secondary"
          loading={pending}
          onClick={() =>
            run(async () => {
              setStatus({});
              try {
                const result = await app.registerPasskey();
                if (result.status === "error") setStatus({ error: describeError(result.error, s).message });
                else setStatus({ info: s.passkeyAdded });
              } catch (caught) {
                reportUnexpected(caught);
                setStatus({ error: describeError(caught, s).message });
              }
            })
          }
        >
          <FingerprintIcon />
          {s.addPasskey}
        </Button>
      </div>
    </div>
  );
}

function OtpSetting() {
  const s = useStrings();
  const user = useUser({ or: "throw", includeRestricted: true });
  const [run, pending] = useAction();
  return (
    <div className="gh-subsection" style={{ alignItems: "center" }}>
      <div className="gh-subsection-text">
        <span className="gh-subsection-title">{s.otpSection}</span>
        <span className="gh-muted">{s.otpDescription}</span>
      </div>
      <Switch
        label={s.otpSection}
        checked={user.otpAuthEnabled}
        disabled={pending}
        onChange={(checked) => run(() => user.update({ otpAuthEnabled: checked }))}
      />
    </div>
  );
}
