/**
 * A promise and the function that settles it, for tests that hold one side of a race at a chosen point (a query
 * kept waiting, a lock held) and let it go later. Node 20 has no `Promise.withResolvers`.
 */
export function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve: () => void = () => {};
  const promise = new Promise<void>((settle) => {
    resolve = settle;
  });
  return { promise, resolve };
}
