export {
  type ConcreteKnownErrorCode,
  KNOWN_ERROR_CODES,
  type KnownErrorCode,
  type KnownErrorFamilyCode,
  knownErrorCatalogue,
} from "./catalogue.ts";
export type { KnownErrorDefinition } from "./definition.ts";
export {
  isKnownError,
  KnownError,
  type KnownErrorDetails,
  type KnownErrorJson,
  knownError,
} from "./known-error.ts";
export {
  fieldInWords,
  looksTechnical,
  problemInWords,
  type SchemaIssue,
  schemaIssues,
} from "./schema-issues.ts";
