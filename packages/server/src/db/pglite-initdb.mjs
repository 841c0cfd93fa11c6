// Creates an embedded database in an empty data directory, in a process of its own: `node pglite-initdb.mjs
// <dataDir> <start parameters as JSON>`. open-pglite.ts runs it before opening a fresh directory. Plain JavaScript
// (not TypeScript) because it is run as a file, whether the server runs from its sources or from the bundle.
//
// Why a process: PGlite runs initdb in a second engine of its own (initdb.wasm beside pglite.wasm), builds the
// database in memory and copies it to the directory as a tar, and the WebAssembly memories and buffers this takes
// (~400-500 MiB at the peak) are garbage the server process would carry until V8 collects them, if ever: a fresh
// start was ready at 370-390 MiB against ~230 MiB for a second start. A worker thread did not give it back either
// (the engines' memory stayed in the process's allocator). A process returns all of it when it exits.
import { PGlite } from "@electric-sql/pglite";

const [dataDir, startParams] = process.argv.slice(2);
const client = new PGlite({ dataDir, startParams: JSON.parse(startParams) });
await client.waitReady;
await client.close();
// Something of the engine's keeps the event loop alive after close; the files are written by now.
process.exit(0);
