import { useStrings } from "../../context.ts";
import { useGatehouseApp, useNotificationCategories } from "../../hooks.ts";
import { SectionBoundary } from "../../internal/boundary.tsx";
import { invalidateLists } from "../../internal/caches.ts";
import { Loading, Section, Switch } from "../../internal/ui.tsx";
import { useAction } from "../../internal/use-action.ts";

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
    <ul className="gh-list">
      {categories.map((category) => (
        <li className="gh-list-item" key={category.id}>
          <div className="gh-list-main">
            <span className="gh-list-title">{category.name}</span>
            {category.canDisable ? null : <span className="gh-list-meta">{s.notificationRequired}</span>}
          </div>
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
        </li>
      ))}
    </ul>
  );
}
