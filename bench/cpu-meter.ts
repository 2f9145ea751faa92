/**
 * CPU time of a server process and of the PostgreSQL backends of one database, from /proc.
 * Throughput on a small shared machine swings with whatever else runs; CPU per request does not,
 * so before/after comparisons should look at it first. Backends come and go with the pools, so
 * they are sampled every 200 ms and each keeps its last reading.
 */
import fs from 'node:fs';

/** CPU time a process has used, in ms (user + system); 0 where /proc is not there. */
export function cpuMs(pid: number | undefined): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // USER_HZ ticks
  } catch {
    return 0;
  }
}

export interface CpuReading {
  service: number;
  pg: Map<number, number>;
}

export function cpuMeter(pool: { query: (sql: string) => Promise<{ rows: { pid: number }[] }> }, servicePid: number | undefined) {
  const pgLast = new Map<number, number>();
  const sample = async () => {
    for (const r of (await pool.query('select pid from pg_stat_activity where datname = current_database()')).rows) {
      const ms = cpuMs(r.pid);
      if (ms > 0) pgLast.set(r.pid, ms);
    }
  };
  const timer = setInterval(() => void sample().catch(() => {}), 200);
  return {
    async read(): Promise<CpuReading> {
      await sample();
      return { service: cpuMs(servicePid), pg: new Map(pgLast) };
    },
    stop: () => clearInterval(timer),
  };
}

/** CPU per request between two readings, in ms: the service's and PostgreSQL's. */
export function cpuPer(before: CpuReading, after: CpuReading, n: number): { service: number; pg: number } {
  let pg = 0;
  for (const [pid, ms] of after.pg) pg += ms - (before.pg.get(pid) ?? 0);
  return { service: (after.service - before.service) / n, pg: pg / n };
}
