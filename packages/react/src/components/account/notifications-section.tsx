import { useStrings } from "../../context.ts";
import { useGatehouseApp, useNotificationCategories } from "../../hooks.ts";
import { SectionBoundary } from "../../internal/boundary.tsx";
import { invalidateLists } from "../../internal/caches.ts";
import { Loading, Section, Switch } from "../../internal/ui.tsx";
import { useAction } from "../../internal/use-action.ts";
import { List, ListRow } from "../../ui/list.tsx";

export function NotificationsSection() {
  const s = useStrings();
  return (
    <Section id="notifications" title={s.sectionNotifications} description={s.notificationsDescription}>
      <SectionBoundary fallback={<Loading />}>
        <Categories />
      </SectionBoundary>
    </Section>
  );
}

function Categories() {
  const s = useStrings();
  const app = useGatehouseApp();
  const categories = useNotificationCategories();
  const [run, pending] = useAction();
  return (
    <List>
      {categories.map((category) => (
        <ListRow
          key={category.id}
          title={category.name}
          meta={category.canDisable ? null : s.notificationRequired}
          actions={
            <Switch
              label={category.name}
              checked={category.enabled}
              disabled={!category.canDisable || pending}
              onChange={(enabled) =>
                run(async () => {
                  await category.setEnabled(enabled);
                  invalidateLists(app, "notificationCategories");
                })
              }
            />
          }
        />
      ))}
    </List>
  );
}
