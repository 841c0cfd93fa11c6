type AsyncMethods = Record<string, (...args: never[]) => Promise<unknown>>;

/**
 * Methods whose module is loaded on their first call, for an object's rarely used group of methods: a bundler
 * puts `load`'s `import()` in a chunk of its own, fetched only when one of them is called. `names` lists every
 * method, checked against the group's type, since the object must have them before the module is there.
 */
export function lazyMethods<Methods extends AsyncMethods>(
  load: () => Promise<Methods>,
  names: Record<keyof Methods, true>,
): Methods {
  let loading: Promise<Methods> | undefined;
  const methods: Record<string, (...args: never[]) => Promise<unknown>> = {};
  for (const name of Object.keys(names)) {
    methods[name] = async (...args) => {
      // A failed load (e.g. the network) is tried again on the next call.
      loading ??= load().catch((error: unknown) => {
        loading = undefined;
        throw error;
      });
      return (await loading)[name]!(...args);
    };
  }
  return methods as Methods;
}
