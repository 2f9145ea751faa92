import type { Pool } from '../pool.ts';

/**
 * VACUUM (ANALYZE) of graphile-worker's job table. Every job is inserted, locked (an update)
 * and deleted, so the table is all dead rows within seconds under load, and where autovacuum is
 * off (as on the machines we run on) nothing ever reclaims them: the table only grows. Some of
 * graphile-worker's statements keep plans that scan the whole table (prepared while it was
 * small and without statistics): over 20,000 bookings it came to 675 pages, read about a
 * hundred times a second, and it would have kept growing with every job. After a VACUUM the
 * space is reused and the table stops growing (measured: 356 pages, and still 356 after
 * another 13,000 jobs).
 * TRUNCATE false: cutting empty pages off the end would take a lock that holds up every job
 * fetch and enqueue for a moment; the space is reused all the same. Sent as a simple query on a
 * connection of its own (VACUUM cannot run inside a transaction block). Without ownership of
 * the table PostgreSQL skips it with a warning, not an error: the warnings come back, to log.
 */
export async function vacuumJobTable(pool: Pool): Promise<string[]> {
  const client = await pool.connect();
  const notices: string[] = [];
  const onNotice = (n: { message?: string }) => notices.push(n.message ?? '');
  client.on('notice', onNotice);
  try {
    await client.query('vacuum (analyze, truncate false) graphile_worker._private_jobs');
  } finally {
    client.off('notice', onNotice);
    client.release();
  }
  return notices;
}
