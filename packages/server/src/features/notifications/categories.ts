/** The fixed notification categories (PROTOCOL.md §3.13). Their ids are part of the protocol. */

export type NotificationCategory = {
  id: string;
  name: string;
  enabledByDefault: boolean;
  canDisable: boolean;
};

export const TRANSACTIONAL_CATEGORY: NotificationCategory = {
  id: "7bb82d33-2f54-4a3d-9d23-82739e0d66ef",
  name: "Transactional",
  enabledByDefault: true,
  canDisable: false,
};

export const MARKETING_CATEGORY: NotificationCategory = {
  id: "4f6f8873-3d04-46bd-8bef-18338b1a1b4c",
  name: "Marketing",
  enabledByDefault: true,
  canDisable: true,
};

export const NOTIFICATION_CATEGORIES: readonly NotificationCategory[] = [
  TRANSACTIONAL_CATEGORY,
  MARKETING_CATEGORY,
];

export function findCategoryById(id: string): NotificationCategory | undefined {
  return NOTIFICATION_CATEGORIES.find((category) => category.id === id.toLowerCase());
}

/** By display name, as `POST /emails/send-email` names a category (`notification_category_name`). */
export function findCategoryByName(name: string): NotificationCategory | undefined {
  return NOTIFICATION_CATEGORIES.find((category) => category.name === name);
}
