import type { SignUpRulesStats } from "@gatehouse/js";
import { Button } from "@gatehouse/react/ui";
import { useState } from "react";
import { useProjectContext } from "../../project-context.tsx";
import { AsyncCard } from "../../ui/async.tsx";
import { Badge, Card, Empty, Field, PageHead, Table } from "../../ui/components.tsx";
import { useAsync } from "../../ui/hooks.ts";
import { Icon } from "../../ui/icons.tsx";
import { ConfirmButton } from "../../ui/modal.tsx";
import { usePageTitle } from "../../ui/page-title.ts";
import { useToast } from "../../ui/toast.tsx";
import { RuleFailure } from "./rule-failure.tsx";
import {
  actionLabel,
  RuleFormModal,
  readDefaultAction,
  readRules,
  ruleEntry,
  type SignUpRule,
} from "./sign-up-rules-form.tsx";
import { SignUpRulesTester } from "./sign-up-rules-tester.tsx";

type Editing = { kind: "new" } | { kind: "edit"; rule: SignUpRule };

/**
 * Sign-up rules (PROTOCOL-EXTRA §6.3): the project's `auth.signUpRules` in evaluation order with how often each
 * matched and whether its condition is failing on real sign-ups, the default action, add / edit / enable / delete (config writes), and a tester for a sample sign-up.
 */
export function SignUpRulesPage() {
  const { project, app } = useProjectContext();
  usePageTitle("Sign-up rules");
  const toast = useToast();
  const config = useAsync(() => project.getConfig(), [project]);
  const stats = useAsync(() => app.getSignUpRulesStats(), [app]);
  const [editing, setEditing] = useState<Editing | null>(null);
  const rules = config.data ? readRules(config.data) : [];
  const reload = () => Promise.all([config.reload(), stats.reload()]).then(() => undefined);

  const save = async (override: Record<string, unknown>, success: string) => {
    try {
      await project.updateConfig(override);
      await reload();
      toast.success(success);
    } catch (error) {
      toast.error(error);
    }
  };

  const addButton = (
    <Button small onClick={() => setEditing({ kind: "new" })} disabled={!config.data}>
      <Icon name="plus" /> Add rule
    </Button>
  );
  return (
    <>
      <PageHead
        title="Sign-up rules"
        description="Decide who can create an account. Every new sign-up runs through these rules, highest priority first; the first matching allow or reject decides."
      />
      <AsyncCard
        flush
        title="Rules"
        description="Triggers count real sign-ups the rule matched, in the last 48 hours and in all."
        actions={addButton}
        state={config}
        rows={3}
        testId="sign-up-rules"
        isEmpty={(data) => readRules(data).length === 0}
        empty={
          <Empty icon={<Icon name="shield" size={22} />} title="No sign-up rules yet" action={addButton}>
            Block disposable addresses, restrict sign-ups from some countries, or watch a domain, with a CEL
            condition.
          </Empty>
        }
      >
        {() => (
          <Table testId="sign-up-rules-table">
            <thead>
              <tr>
                <th>Rule</th>
                <th>Action</th>
                <th>Priority</th>
                <th>Triggers</th>
                <th>Enabled</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {rules.map((rule) => (
                <tr key={rule.id} data-rule-id={rule.id}>
                  <td>
                    <strong>{rule.displayName || rule.id}</strong>
                    <div className="small mono muted">{rule.condition || "(no condition: never runs)"}</div>
                    <RuleFailure stats={stats.data} ruleId={rule.id} />
                  </td>
                  <td>
                    <Badge
                      tone={
                        rule.action.type === "reject"
                          ? "danger"
                          : rule.action.type === "restrict"
                            ? "warning"
                            : undefined
                      }
                    >
                      {actionLabel(rule.action.type)}
                    </Badge>
                  </td>
                  <td>{rule.priority}</td>
                  <td className="small" data-testid="rule-triggers">
                    {triggerWords(stats.data, rule.id)}
                  </td>
                  <td>
                    <input
                      type="checkbox"
                      role="switch"
                      aria-checked={rule.enabled}
                      className="switch"
                      aria-label={`Enable ${rule.displayName || rule.id}`}
                      checked={rule.enabled}
                      onChange={(event) =>
                        save(
                          {
                            [`auth.signUpRules.${rule.id}`]: ruleEntry({
                              ...rule,
                              enabled: event.target.checked,
                            }),
                          },
                          event.target.checked ? "Rule enabled" : "Rule disabled",
                        )
                      }
                    />
                  </td>
                  <td style={{ textAlign: "right", whiteSpace: "nowrap" }}>
                    <Button
                      variant="secondary"
                      small
                      aria-label={`Edit ${rule.displayName || rule.id}`}
                      onClick={() => setEditing({ kind: "edit", rule })}
                    >
                      Edit
                    </Button>{" "}
                    <ConfirmButton
                      small
                      label="Delete"
                      title={`Delete ${rule.displayName || rule.id}?`}
                      description="New sign-ups stop being checked against it. Its trigger counts stay."
                      confirmLabel="Delete rule"
                      success="Rule deleted"
                      onConfirm={async () => {
                        await project.updateConfig({ [`auth.signUpRules.${rule.id}`]: null });
                        await reload();
                      }}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </Table>
        )}
      </AsyncCard>
      {config.data ? (
        <Card title="When no rule decides" description="Applies when no allow or reject rule matched.">
          <Field label="Default action">
            <select
              name="defaultAction"
              value={readDefaultAction(config.data)}
              onChange={(event) =>
                save({ "auth.signUpRulesDefaultAction": event.target.value }, "Default action saved")
              }
            >
              <option value="allow">Allow the sign-up</option>
              <option value="reject">Reject the sign-up</option>
            </select>
          </Field>
        </Card>
      ) : null}
      {config.data ? <SignUpRulesTester rules={rules} /> : null}
      {editing ? (
        <RuleFormModal
          rule={editing.kind === "edit" ? editing.rule : null}
          existingIds={rules.map((rule) => rule.id)}
          onClose={() => setEditing(null)}
          onSaved={async () => {
            await reload();
            toast.success(editing.kind === "edit" ? "Rule saved" : "Rule added");
          }}
        />
      ) : null}
    </>
  );
}

function triggerWords(stats: SignUpRulesStats | undefined, ruleId: string): string {
  if (!stats) return "…";
  const entry = stats.rule_triggers.find((trigger) => trigger.rule_id === ruleId);
  return `${entry?.total_count ?? 0} in ${stats.analytics_hours} h · ${entry?.all_time_count ?? 0} in all`;
}
