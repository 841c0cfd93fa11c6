/**
 * True if `work` settled within `ms`; false once `ms` passed without it (the work goes on: nothing here can cancel
 * it). Without `ms` it waits as long as the work takes. Shutdown uses it to bound each of its waits.
 */
export async function settlesWithin(work: Promise<unknown>, ms: number | undefined): Promise<boolean> {
  if (ms === undefined) {
    await work;
    return true;
  }
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), Math.max(0, ms));
  });
  try {
    return await Promise.race([work.then(() => true as const), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
