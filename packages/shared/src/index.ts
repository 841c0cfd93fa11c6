export * from "./domains/index.ts";
export * from "./email-templates.ts";
export * from "./install/index.ts";
export * from "./known-errors/index.ts";
export type * from "./wire/index.ts";
