/**
 * Results of the validators in this folder. A failure carries one human sentence that the dashboard can show
 * next to the field as is.
 */
export type ValidationResult = { ok: true } | { ok: false; message: string };

export type ParseResult<T> = { ok: true; value: T } | { ok: false; message: string };
