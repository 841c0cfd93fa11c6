import { useState } from "react";
import { useStrings } from "../../context.ts";
import { useGatehouseApp, useProject, useUser } from "../../hooks.ts";
import { FingerprintIcon } from "../../internal/icons.tsx";
import { Alert, Button, Section, Switch } from "../../internal/ui.tsx";
import { useAction, useFormAction } from "../../internal/use-action.ts";
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
  const [added, setAdded] = useState(false);
  const action = useFormAction();
  return (
    <div className="gh-subsection">
      <div className="gh-subsection-text">
        <span className="gh-subsection-title">{s.passkeysSection}</span>
        <span className="gh-muted">
          {user.passkeyAuthEnabled ? s.passkeyRegistered : s.passkeysDescription}
        </span>
        {action.error ? <Alert>{action.error}</Alert> : null}
        {added ? <Alert tone="success">{s.passkeyAdded}</Alert> : null}
      </div>
      <div className="gh-row-actions">
        {user.passkeyAuthEnabled ? (
          <Button
            variant="ghost"
            disabled={action.pending}
            onClick={() => action.run(() => user.update({ passkeyAuthEnabled: false }))}
          >
            {s.disablePasskeys}
          </Button>
        ) : null}
        <Button
          variant="secondary"
          loading={action.pending}
          onClick={() =>
            action.run(async () => {
              setAdded(false);
              const result = await app.registerPasskey();
              if (result.status === "error") action.fail(result.error);
              else setAdded(true);
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
