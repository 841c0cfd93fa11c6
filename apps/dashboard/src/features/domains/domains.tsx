import { Button } from "@gatehouse/react/ui";
import { validateTrustedDomainBaseUrl } from "@gatehouse/shared";
import { type FormEvent, useState } from "react";
import { useProjectContext } from "../../project-context.tsx";
import { Card, Empty, Field, PageHead, Table, Toggle } from "../../ui/components.tsx";
import { TextField } from "../../ui/fields.tsx";
import { errorMessage } from "../../ui/hooks.ts";
import { Icon } from "../../ui/icons.tsx";
import { ConfirmButton } from "../../ui/modal.tsx";
import { usePageTitle } from "../../ui/page-title.ts";
import { useToast } from "../../ui/toast.tsx";

export function DomainsPage() {
  const { project, refresh } = useProjectContext();
  usePageTitle("Domains");
  const toast = useToast();
  const domains = project.config.domains;
  const [domain, setDomain] = useState("");
  const [handlerPath, setHandlerPath] = useState("/handler");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const saveDomains = async (next: { domain: string; handlerPath: string }[]) => {
    await project.update({ config: { domains: next } });
    await refresh();
  };
  const add = async (event: FormEvent) => {
    event.preventDefault();
    const value = domain.trim().replace(/\/+$/, "");
    const checked = validateTrustedDomainBaseUrl(value);
    if (!checked.ok) {
      setError(checked.message);
      return;
    }
    if (!handlerPath.startsWith("/")) {
      setError("The handler path must start with /.");
      return;
    }
    if (domains.some((existing) => existing.domain === value)) {
      setError("This domain is already trusted.");
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await saveDomains([...domains, { domain: value, handlerPath }]);
      setDomain("");
      toast.success("Domain added");
    } catch (caught) {
      setError(errorMessage(caught));
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <PageHead
        title="Domains"
        description="Sites your app runs on. Sign-in redirects and email links only go to these."
      />
      <Card title="Trusted domains" flush>
        {domains.length === 0 ? (
          <Empty icon={<Icon name="globe" size={22} />} title="No trusted domains">
            Add the URL your app is served from, e.g. https://app.example.com.
          </Empty>
        ) : (
          <Table testId="domains">
            <thead>
              <tr>
                <th>Domain</th>
                <th>Handler path</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {domains.map((item) => (
                <tr key={item.domain}>
                  <td className="mono">{item.domain}</td>
                  <td className="mono muted">{item.handlerPath}</td>
                  <td style={{ textAlign: "right" }}>
                    <ConfirmButton
                      small
                      label="Remove"
                      title={`Remove ${item.domain}?`}
                      description="Sign-ins from this site stop working."
                      success="Domain removed"
                      onConfirm={() => saveDomains(domains.filter((d) => d.domain !== item.domain))}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </Table>
        )}
        <form className="card-body" onSubmit={add} style={{ borderTop: "1px solid var(--border)" }}>
          <div className="row" style={{ alignItems: "flex-start" }}>
            <div style={{ flex: 2 }}>
              <Field
                label="Domain"
                error={error}
                hint="With https://; a * matches one label (https://*.example.com)."
              >
                <input
                  type="text"
                  name="domain"
                  className={error ? "invalid" : ""}
                  placeholder="https://app.example.com"
                  value={domain}
                  onChange={(e) => {
                    setDomain(e.target.value);
                    setError(null);
                  }}
                />
              </Field>
            </div>
            <div style={{ flex: 1 }}>
              <TextField
                label="Handler path"
                name="handlerPath"
                value={handlerPath}
                onChange={setHandlerPath}
              />
            </div>
            <div style={{ paddingTop: 27 }}>
              <Button type="submit" loading={busy}>
                Add domain
              </Button>
            </div>
          </div>
        </form>
      </Card>
      <Card title="Development">
        <Toggle
          name="allowLocalhost"
          label="Allow localhost"
          description="Redirects to http://localhost are accepted. Turn off before production."
          checked={project.config.allowLocalhost}
          onChange={async (value) => {
            try {
              await project.update({ config: { allowLocalhost: value } });
              await refresh();
              toast.success("Saved");
            } catch (caught) {
              toast.error(caught);
            }
          }}
        />
      </Card>
    </>
  );
}
