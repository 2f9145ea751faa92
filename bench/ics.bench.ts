/**
 * The iCalendar busy-time reader on a 10,000-event calendar: busyFromIcs over 10,000 CalDAV
 * resources (a third recurring weekly, Google/Apple/Outlook VTIMEZONEs), a 180-day window.
 * Pure CPU, no database; CPU time is printed beside wall time because a shared machine's wall
 * time says more about its neighbours. `npm run bench -- ics` (or `node bench/ics.bench.ts`)
 */
import { busyFromIcs } from '../src/domain/calendars/ics/busy.ts';
import { syntheticCalendar } from '../test/helpers/ics-synthetic.ts';

const RESOURCES = 10_000;
const RUNS = 5;
const windowStart = new Date('2026-03-01T00:00:00Z');
const windowEnd = new Date(windowStart.getTime() + 180 * 86_400_000);
const calendar = syntheticCalendar(RESOURCES, { around: windowStart });
const recurring = calendar.filter((r) => r.recurring).length;

function pass(): { wallMs: number; cpuMs: number; blocks: number; recurringMs: number; singleMs: number } {
  let blocks = 0;
  let recurringMs = 0;
  let singleMs = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (const r of calendar) {
    const t = performance.now();
    const result = busyFromIcs(r.ics, { windowStart, windowEnd, zone: 'Europe/Berlin' });
    const spent = performance.now() - t;
    if (r.recurring) recurringMs += spent;
    else singleMs += spent;
    if (result.skipped) throw new Error(`${r.uid} skipped: ${JSON.stringify(result.skips)}`);
    blocks += result.blocks.length;
  }
  const cpu = process.cpuUsage(cpu0);
  return { wallMs: performance.now() - t0, cpuMs: (cpu.user + cpu.system) / 1000, blocks, recurringMs, singleMs };
}

console.log(`# ${RESOURCES} resources (${recurring} weekly recurring), window 180 days, ${RUNS} runs`);
const runs = Array.from({ length: RUNS }, pass);
for (const [i, r] of runs.entries()) {
  console.log(
    `run ${i + 1}${i === 0 ? ' (cold)' : ''}: wall ${r.wallMs.toFixed(0)} ms, CPU ${r.cpuMs.toFixed(0)} ms, ` +
      `${(r.cpuMs / RESOURCES).toFixed(3)} ms CPU/resource, ${r.blocks} blocks; ` +
      `wall per recurring ${(r.recurringMs / recurring).toFixed(3)} ms, ` +
      `per single ${(r.singleMs / (RESOURCES - recurring)).toFixed(3)} ms`,
  );
}
const best = runs.slice(1).sort((a, b) => a.cpuMs - b.cpuMs)[0];
const perSecond = Math.round(RESOURCES / (best.cpuMs / 1000));
console.log(`best warm run: ${best.cpuMs.toFixed(0)} ms CPU for ${RESOURCES} resources = ${perSecond} resources/s`);
