/**
 * Sign-up rule conditions are CEL expressions (PROTOCOL-EXTRA §6.3), run by @marcbachmann/cel-js: a typed
 * environment declares the context variables, so `emailDomain == 1` or an unknown variable is an error of that rule
 * rather than a silent "no match", and the library's own `contains`, `startsWith`, `endsWith` and `matches` string
 * methods cover what the reference pre-evaluates.
 *
 * Conditions are written by project owners and run on every sign-up of a server shared by many projects, so the
 * parser's structural limits are tight and `matches` patterns are screened before anything runs: JavaScript's
 * backtracking regular expressions can take exponential time (`(a+)+$`), where CEL's RE2 takes linear time. A
 * pattern must be a string literal, short, without a quantified group that itself holds a quantifier, an
 * alternation or a backreference, and with few unbounded quantifiers and backreferences (each costs up to the
 * length of the text). Anything else is an evaluation error, which counts as "no match". Backreferences are
 * JavaScript's, as on the reference platform, which runs `matches` with JavaScript regular expressions.
 */
import { type ASTNode, Environment } from "@marcbachmann/cel-js";
import type { SignUpRuleContext } from "./context.ts";
import { evaluationCostProblem, MAX_INPUT_LENGTH } from "./cost.ts";

const environment = new Environment({
  limits: { maxAstNodes: 400, maxDepth: 24, maxListElements: 300, maxMapEntries: 50, maxCallArguments: 8 },
})
  .registerVariable("email", "string")
  .registerVariable("emailDomain", "string")
  .registerVariable("countryCode", "string")
  .registerVariable("authMethod", "string")
  .registerVariable("oauthProvider", "string")
  // `freeTrialAbuse` is the spelling of some reference versions; both read the same score.
  .registerVariable("riskScores", { schema: { bot: "int", free_trial_abuse: "int", freeTrialAbuse: "int" } });

/** Longer conditions are refused before parsing; the dashboard's are a line or two. */
export const MAX_CONDITION_LENGTH = 4000;
const MAX_PATTERN_LENGTH = 200;
const MAX_UNBOUNDED_QUANTIFIERS = 3;

type Program = ReturnType<Environment["parse"]>;
/** `position`: the offset in the condition of what is wrong, when the problem has one. */
type Compiled = { program: Program } | { error: string; position: number | null };

/** Parsed conditions by source; config changes are rare, so a bounded map that starts over when full is enough. */
const compiled = new Map<string, Compiled>();
const MAX_COMPILED = 1000;

export type ConditionResult = { matched: boolean } | { error: string };

/** Why a condition cannot run, and where (1-based, in the condition as written) when that is known. */
export type ConditionProblem =
  | { reason: string; line: number; column: number }
  | { reason: string; line: null };

function messageOf(error: unknown): string {
  // cel-js errors carry a one-line `summary`; their message adds a caret diagram on further lines.
  const summary = (error as { summary?: unknown } | null)?.summary;
  const text = typeof summary === "string" ? summary : error instanceof Error ? error.message : String(error);
  return text.split("\n")[0]!.slice(0, 500);
}

function positionOf(error: unknown): number | null {
  const start = (error as { range?: { start?: unknown } } | null)?.range?.start;
  return typeof start === "number" ? start : null;
}

function compile(condition: string): Compiled {
  if (condition.length > MAX_CONDITION_LENGTH) {
    return { error: `The condition is longer than ${MAX_CONDITION_LENGTH} characters.`, position: null };
  }
  const source = withReferencePatternLiterals(condition);
  const at = (position: number | null) => (position === null ? null : source.originalOffset(position));
  try {
    const program = environment.parse(source.text);
    const checked = program.check();
    if (!checked.valid) return { error: messageOf(checked.error), position: at(positionOf(checked.error)) };
    if (checked.type !== "bool") {
      return {
        error: `The condition must be true or false, but it is of type ${checked.type}.`,
        position: null,
      };
    }
    const unsafe = unsafeMatchesCall(program.ast) ?? evaluationCostProblem(program.ast);
    return unsafe ? { error: unsafe.reason, position: at(unsafe.position) } : { program };
  } catch (error) {
    return { error: messageOf(error), position: at(positionOf(error)) };
  }
}

function compiledCondition(condition: string): Compiled {
  let entry = compiled.get(condition);
  if (!entry) {
    if (compiled.size >= MAX_COMPILED) compiled.clear();
    entry = compile(condition);
    compiled.set(condition, entry);
  }
  return entry;
}

/** The values as the CEL environment types them: integers are CEL `int`s (bigint). */
function celContext(context: SignUpRuleContext) {
  return {
    email: context.email,
    emailDomain: context.emailDomain,
    countryCode: context.countryCode,
    authMethod: context.authMethod,
    oauthProvider: context.oauthProvider,
    riskScores: {
      bot: BigInt(context.riskScores.bot),
      free_trial_abuse: BigInt(context.riskScores.free_trial_abuse),
      freeTrialAbuse: BigInt(context.riskScores.free_trial_abuse),
    },
  };
}

/** The first text of the context longer than the cost bound assumes (cost.ts), or null. */
function overlongInput(context: SignUpRuleContext): string | null {
  const texts = { email: context.email, oauthProvider: context.oauthProvider };
  const name = Object.entries(texts).find(([, text]) => text.length > MAX_INPUT_LENGTH)?.[0];
  return name
    ? `The sign-up's ${name} is longer than the ${MAX_INPUT_LENGTH} characters conditions run on.`
    : null;
}

/** Whether the condition holds for the context; a parse, type or evaluation error is reported, never thrown. */
export function evaluateCondition(condition: string, context: SignUpRuleContext): ConditionResult {
  const entry = compiledCondition(condition);
  if ("error" in entry) return { error: entry.error };
  const overlong = overlongInput(context);
  if (overlong) return { error: overlong };
  try {
    const value: unknown = entry.program(celContext(context));
    if (typeof value !== "boolean") return { error: "The condition did not evaluate to true or false." };
    return { matched: value };
  } catch (error) {
    return { error: messageOf(error) };
  }
}

/**
 * Why a condition would not run, for checks on save (config/sign-up-rules.ts) and editors; null when it would. The
 * position counts in `condition` as given, leading white space included.
 */
export function conditionProblem(condition: string): ConditionProblem | null {
  const trimmed = condition.trim();
  const entry = compiledCondition(trimmed);
  if (!("error" in entry)) return null;
  if (entry.position === null) return { reason: entry.error, line: null };
  const before = condition.slice(0, condition.indexOf(trimmed) + entry.position);
  const lines = before.split("\n");
  return { reason: entry.error, line: lines.length, column: lines.at(-1)!.length + 1 };
}

/** "at column 12: Unknown variable: emial", or the reason alone when it has no position. */
export function describeConditionProblem(problem: ConditionProblem): string {
  if (problem.line === null) return problem.reason;
  const line = problem.line > 1 ? `line ${problem.line}, ` : "";
  return `at ${line}column ${problem.column}: ${problem.reason}`;
}

// ---------------------------------------------------------------------------------------------------------------
// `matches` patterns
// ---------------------------------------------------------------------------------------------------------------

/** `<variable>.matches("<pattern>")` with a double-quoted literal, as the reference recognises it. */
const MATCHES_CALL = /(\w+)\.matches\s*\(\s*"((?:\\.|[^"\\])*)"\s*\)/g;

/**
 * The reference reads a double-quoted `matches` pattern with only `\\` and `\"` as escapes, so that regular
 * expression escapes can be written once: `"^(.)\1"` (a backreference), `"\d+"`, `"\bx"` (a word boundary). CEL
 * would refuse `\1` and `\d`, and read `\b` as a backspace; such literals are re-written as the CEL literal of the
 * pattern the reference would run. Any other condition text is left as it is.
 */
function withReferencePatternLiterals(condition: string): {
  text: string;
  /** Where an offset of `text` lies in `condition`: inside a re-written call, the call's start. */
  originalOffset: (offset: number) => number;
} {
  const rewrites: { textStart: number; textEnd: number; originalStart: number; originalEnd: number }[] = [];
  let growth = 0;
  const text = condition.replace(
    MATCHES_CALL,
    (call: string, variable: string, literal: string, offset: number) => {
      const pattern = literal.replace(/\\([\\"])/g, "$1");
      const celLiteral = pattern.replace(/[\\"]/g, (char) => `\\${char}`);
      const rewritten = `${variable}.matches("${celLiteral}")`;
      const textStart = offset + growth;
      rewrites.push({
        textStart,
        textEnd: textStart + rewritten.length,
        originalStart: offset,
        originalEnd: offset + call.length,
      });
      growth += rewritten.length - call.length;
      return rewritten;
    },
  );
  const originalOffset = (offset: number) => {
    const last = rewrites.findLast((rewrite) => rewrite.textStart <= offset);
    if (!last) return offset;
    return offset < last.textEnd ? last.originalStart : last.originalEnd + (offset - last.textEnd);
  };
  return { text, originalOffset };
}

function isNode(value: unknown): value is ASTNode {
  return typeof value === "object" && value !== null && "op" in value && "args" in value;
}

/** Every `matches` call of the expression must have a pattern we are willing to run; returns why not, or null. */
function unsafeMatchesCall(node: ASTNode): { reason: string; position: number } | null {
  if (node.op === "rcall" || node.op === "call") {
    const [name] = node.args;
    const callArgs = node.op === "rcall" ? node.args[2] : node.args[1];
    if (name === "matches") {
      const pattern = callArgs.at(-1);
      if (pattern?.op !== "value" || typeof pattern.args !== "string") {
        return { reason: "The pattern of matches() must be a string literal.", position: node.pos };
      }
      const problem = unsafePatternReason(pattern.args);
      if (problem)
        return { reason: `The pattern of matches() is not allowed: ${problem}`, position: pattern.pos };
    }
  }
  const children: unknown[] = Array.isArray(node.args) ? node.args.flat(2) : [node.args];
  for (const child of children) {
    if (!isNode(child)) continue;
    const problem = unsafeMatchesCall(child);
    if (problem) return problem;
  }
  return null;
}

type Group = { hasQuantifier: boolean; hasAlternation: boolean };

/**
 * Why a regular expression could backtrack badly, or null. A conservative screen of the pattern's text: it refuses
 * some harmless patterns (`(ab)+` is fine but `(a|b)+` is refused; `[ab]+` says the same thing and passes).
 */
export function unsafePatternReason(pattern: string): string | null {
  if (pattern.length > MAX_PATTERN_LENGTH) return `it is longer than ${MAX_PATTERN_LENGTH} characters`;
  try {
    new RegExp(pattern);
  } catch {
    return "it is not a valid regular expression";
  }
  const stack: Group[] = [{ hasQuantifier: false, hasAlternation: false }];
  let unbounded = 0;
  /** The group that just closed, while its quantifier (if any) has not been read yet. */
  let closed: Group | null = null;
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i]!;
    const quantifier = quantifierAt(pattern, i);
    if (quantifier) {
      if (quantifier.unbounded) unbounded++;
      if (closed && (closed.hasQuantifier || closed.hasAlternation) && quantifier.repeats) {
        return "a repeated group contains a repetition or an alternative";
      }
      stack.at(-1)!.hasQuantifier = true;
      i += quantifier.length - 1;
      closed = null;
      continue;
    }
    closed = null;
    if (char === "\\") {
      const next = pattern[i + 1] ?? "";
      if (/[1-9]/.test(next) || next === "k") {
        // A backreference matches text of any length: it counts as an unbounded repetition, and makes the group
        // around it one that must not be repeated.
        unbounded++;
        stack.at(-1)!.hasQuantifier = true;
      }
      i++;
    } else if (char === "[") {
      i = endOfClass(pattern, i);
    } else if (char === "(") {
      if (pattern.startsWith("(?<=", i) || pattern.startsWith("(?<!", i)) return "it uses a lookbehind";
      stack.push({ hasQuantifier: false, hasAlternation: false });
    } else if (char === ")") {
      const group = stack.length > 1 ? stack.pop()! : null;
      if (group) {
        const parent = stack.at(-1)!;
        parent.hasQuantifier ||= group.hasQuantifier;
        parent.hasAlternation ||= group.hasAlternation;
        closed = group;
      }
    } else if (char === "|") {
      stack.at(-1)!.hasAlternation = true;
    }
  }
  if (unbounded > MAX_UNBOUNDED_QUANTIFIERS) {
    return `it has more than ${MAX_UNBOUNDED_QUANTIFIERS} unbounded repetitions (*, + or {n,})`;
  }
  return null;
}

/** The quantifier starting at `i` (`*`, `+`, `?`, `{n}`, `{n,}`, `{n,m}`, each maybe lazy), or null. */
function quantifierAt(
  pattern: string,
  i: number,
): { length: number; unbounded: boolean; repeats: boolean } | null {
  const char = pattern[i];
  const lazy = (length: number) => (pattern[i + length] === "?" ? length + 1 : length);
  if (char === "*" || char === "+") return { length: lazy(1), unbounded: true, repeats: true };
  if (char === "?") return { length: lazy(1), unbounded: false, repeats: false };
  if (char !== "{") return null;
  const match = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(i));
  if (!match) return null;
  const max = match[2] === undefined ? Number(match[1]) : match[3] === "" ? Infinity : Number(match[3]);
  // Wide bounded ranges backtrack like unbounded ones.
  return { length: lazy(match[0].length), unbounded: max > 20, repeats: max > 1 };
}

/** The index of the `]` closing the character class that opens at `start`. */
function endOfClass(pattern: string, start: number): number {
  let i = start + 1;
  if (pattern[i] === "^") i++;
  if (pattern[i] === "]") i++;
  for (; i < pattern.length; i++) {
    if (pattern[i] === "\\") i++;
    else if (pattern[i] === "]") return i;
  }
  return pattern.length;
}
