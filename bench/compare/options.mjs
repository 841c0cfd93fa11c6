// The command-line options the load benches share (compare.mjs, profile.mjs): how long and how hard each path is
// loaded, and which PostgreSQL server holds the scratch databases. `extra` adds a bench's own options.
import { parseArgs } from "node:util";

export function loadOptions(extra = {}) {
  const { values: options } = parseArgs({
    options: {
      seconds: { type: "string", default: "5" },
      warmup: { type: "string", default: "1" },
      concurrency: { type: "string", default: "16" },
      postgres: { type: "string", default: "postgres://postgres@127.0.0.1:5432" },
      ...extra,
    },
  });
  const timing = {
    seconds: Number(options.seconds),
    warmupSeconds: Number(options.warmup),
    concurrency: Number(options.concurrency),
  };
  return { options, timing };
}
