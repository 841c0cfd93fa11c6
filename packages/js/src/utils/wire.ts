/**
 * JSON as the server sent it. Bodies are read field by field into the SDK's typed objects right where they
 * arrive (objects/*), so this one loose type stands for all of them instead of a schema library in the bundle.
 */
// biome-ignore lint/suspicious/noExplicitAny: the one deliberately untyped type, see above.
export type Wire = any;
