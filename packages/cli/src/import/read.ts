/**
 * Reads an import file one record at a time, with the line each record starts on, so that memory stays bounded
 * whatever the file's size: CSV (a header row), JSON Lines (one object per line, as Auth0 exports), a JSON array
 * of objects, or an object whose `users` key holds that array (Firebase's `auth:export`).
 */
import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
import { parse } from "csv-parse";

export type RawRecord = { line: number; value: Record<string, unknown> } | { line: number; error: string };

async function firstChars(path: string): Promise<string> {
  for await (const chunk of createReadStream(path, { encoding: "utf8", end: 4095 })) return chunk as string;
  return "";
}

export async function detectLayout(
  path: string,
  csv: boolean,
): Promise<"csv" | "lines" | "array" | "wrapped"> {
  if (csv) return "csv";
  const start = (await firstChars(path)).replace(/^\uFEFF/, "").trimStart();
  if (start.startsWith("[")) return "array";
  if (/^\{\s*"users"\s*:\s*\[/.test(start)) return "wrapped";
  return "lines";
}

async function* csvRecords(path: string): AsyncGenerator<RawRecord> {
  const parser = createReadStream(path).pipe(
    parse({ columns: true, bom: true, skip_empty_lines: true, info: true, relax_quotes: false }),
  );
  let line = 1;
  try {
    for await (const { record, info } of parser as AsyncIterable<{
      record: Record<string, string>;
      info: { lines: number };
    }>) {
      line = info.lines;
      yield { line, value: record };
    }
  } catch (error) {
    const lines = (error as { lines?: number }).lines;
    yield { line: lines ?? line + 1, error: `unreadable CSV: ${(error as Error).message}` };
  }
}

function parseObject(text: string): Record<string, unknown> | string {
  try {
    const value = JSON.parse(text) as unknown;
    if (typeof value !== "object" || value === null || Array.isArray(value)) return "expected a JSON object";
    return value as Record<string, unknown>;
  } catch (error) {
    return `not valid JSON (${(error as Error).message})`;
  }
}

async function* lineRecords(path: string): AsyncGenerator<RawRecord> {
  let line = 0;
  for await (const text of createInterface({ input: createReadStream(path, "utf8"), crlfDelay: Infinity })) {
    line++;
    const trimmed = (line === 1 ? text.replace(/^\uFEFF/, "") : text).trim();
    if (!trimmed) continue;
    const value = parseObject(trimmed);
    yield typeof value === "string" ? { line, error: value } : { line, value };
  }
}

/** The objects of the array at `recordDepth` (1: a top-level array; 2: the array under `users`). */
async function* arrayRecords(path: string, recordDepth: number): AsyncGenerator<RawRecord> {
  let depth = 0;
  let inString = false;
  let escaped = false;
  let line = 1;
  let parts: string[] | null = null;
  let startLine = 0;
  for await (const chunk of createReadStream(path, { encoding: "utf8", highWaterMark: 256 * 1024 })) {
    const text = chunk as string;
    let start = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text[i];
      if (c === "\n") line++;
      if (inString) {
        if (escaped) escaped = false;
        else if (c === "\\") escaped = true;
        else if (c === '"') inString = false;
        continue;
      }
      if (c === '"') {
        inString = true;
      } else if (c === "{" || c === "[") {
        if (depth === recordDepth && parts === null) {
          if (c === "[") {
            yield { line, error: "expected a JSON object, found an array" };
            return;
          }
          parts = [];
          start = i;
          startLine = line;
        }
        depth++;
      } else if (c === "}" || c === "]") {
        depth--;
        if (depth === recordDepth && parts !== null) {
          parts.push(text.slice(start, i + 1));
          const value = parseObject(parts.join(""));
          parts = null;
          yield typeof value === "string" ? { line: startLine, error: value } : { line: startLine, value };
        }
      } else if (depth === recordDepth && parts === null && c !== "," && !/\s/.test(c!)) {
        yield { line, error: `expected a JSON object, found ${JSON.stringify(c)}` };
        return;
      }
    }
    if (parts !== null) parts.push(text.slice(start));
  }
  if (parts !== null || depth !== 0)
    yield { line: startLine || line, error: "the JSON ends in the middle of a value" };
}

export async function* readRecords(path: string, csv: boolean): AsyncGenerator<RawRecord> {
  const layout = await detectLayout(path, csv);
  if (layout === "csv") yield* csvRecords(path);
  else if (layout === "lines") yield* lineRecords(path);
  else yield* arrayRecords(path, layout === "array" ? 1 : 2);
}
