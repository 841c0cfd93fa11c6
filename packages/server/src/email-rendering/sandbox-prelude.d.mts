/** The script that defines the globals an email script may use (sandbox-prelude.mjs). */
export declare const PRELUDE: string;
