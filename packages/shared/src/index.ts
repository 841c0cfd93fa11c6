export * from "./domains/index.ts";
export * from "./known-errors/index.ts";
