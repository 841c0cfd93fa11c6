// Issue 38's targets next to what this run measured, each marked met or not. The ratios are read within one run,
// as the rest of the report is: on a shared machine the absolute rates move, the ratios much less.

/** Prints the targets table; `gatehouse.tail` and `httpSelect.tail` are the fixed-rate runs at half of each maximum. */
export function printTargets({ gatehouse: gh, argon2, httpSelect }) {
  const ratio = (a, b) => (a && b ? a.rate / b.rate : Number.NaN);
  const rows = [
    {
      what: "session read (GET /users/me) / HTTP floor",
      measured: ratio(gh.rates.sessionRead, httpSelect),
      target: 0.7,
      atLeast: true,
    },
    {
      what: "refresh / HTTP floor",
      measured: ratio(gh.rates.refresh, httpSelect),
      target: 0.5,
      atLeast: true,
    },
    {
      what: "password sign-in, 1,000 users from their own addresses / argon2id limit",
      measured: ratio(gh.rates.signInDistinct, argon2),
      target: 0.9,
      atLeast: true,
    },
    {
      what: "session read p99 / HTTP floor's p99, each at half its maximum rate",
      measured: gh.tail && httpSelect?.tail ? gh.tail.p99 / httpSelect.tail.p99 : Number.NaN,
      target: 2,
      atLeast: false,
    },
  ];
  console.log();
  console.log("Targets (issue 38)");
  const width = Math.max(...rows.map((row) => row.what.length));
  for (const { what, measured, target, atLeast } of rows) {
    const met = Number.isNaN(measured)
      ? "not measured"
      : (atLeast ? measured >= target : measured <= target)
        ? "met"
        : "not met";
    console.log(
      `  ${what.padEnd(width)}  ${measured.toFixed(2).padStart(6)} ×  target ${atLeast ? "≥" : "≤"} ${target} ×  ${met}`,
    );
  }
  const ms = (value) => value.toFixed(1).padStart(7);
  console.log();
  console.log("Latency at a fixed rate, half of each one's maximum (ms, from when each request was due)");
  console.log(
    `  ${"".padEnd(28)}${"rate/s".padStart(8)}${"p50".padStart(8)}${"p99".padStart(8)}${"p99.9".padStart(8)}${"max".padStart(8)}`,
  );
  for (const [label, tail] of [
    ["Gatehouse session read", gh.tail],
    ["HTTP floor", httpSelect?.tail],
  ]) {
    if (!tail) continue;
    console.log(
      `  ${label.padEnd(28)}${tail.rate.toFixed(0).padStart(8)} ${ms(tail.p50)} ${ms(tail.p99)} ${ms(tail.p999)} ${ms(tail.max)}` +
        (tail.failed > 0 ? `  (${tail.failed} failed, e.g. ${tail.firstError})` : ""),
    );
  }
  const pauses = gh.tail?.pauses;
  if (pauses) {
    const gcMs = (pauses.after.gcSeconds - pauses.before.gcSeconds) * 1000;
    const collections = pauses.after.gcCount - pauses.before.gcCount;
    console.log(
      `  During Gatehouse's run: ${collections} garbage collections, ${gcMs.toFixed(0)} ms in all; the event loop's ` +
        `delay p99 ${(pauses.after.loopDelayP99Seconds * 1000).toFixed(1)} ms, max ${(pauses.after.loopDelayMaxSeconds * 1000).toFixed(1)} ms ` +
        "(prom-client's figures since the scrape before the run).",
    );
  }
}
