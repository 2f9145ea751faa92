import { loadSeed } from '../../src/domain/seed/load.ts';
import { validateSeed } from '../../src/domain/seed/validate.ts';
import type { Pool } from '../../src/db/pool.ts';
import { loadOrganization, testSeed } from './fixtures.ts';

/** The load organization's key. */
export const LOAD_KEY = 'sk_test_fault_load_key_0000000000000001';
const HOSTS = 20;

/** Test seed plus an organization sized for load: 20 hosts working around the clock, a 15-minute round-robin type. */
export async function seedLoadOrganization(pool: Pool): Promise<void> {
  const seed = testSeed();
  seed.organizations.push(loadOrganization({ name: 'load', digit: 'f', key: LOAD_KEY, hosts: HOSTS }));
  await loadSeed(pool, validateSeed(seed));
}

export interface CreateResult {
  status: number;
  /** When the answer came (ms since the epoch); 0 status: no answer (connection refused or reset). */
  at: number;
  bookingId?: string;
}

/**
 * Creates on distinct slots (a 15-minute grid starting tomorrow) from `connections` loops until
 * stop() is called; each result is kept. Connection errors (the server is down) count as status 0.
 */
export function createLoad(base: () => string, connections = 4) {
  const day0 = new Date(Date.now() + 86_400_000);
  day0.setUTCHours(0, 0, 0, 0);
  let slot = 0;
  let running = true;
  const results: CreateResult[] = [];
  const loop = async () => {
    while (running) {
      const n = slot++;
      const body = {
        event_type_id: 'et_load',
        requested_time: new Date(day0.getTime() + n * 15 * 60_000).toISOString(),
        attendee: { name: 'Load', email: `load${n}@load.example` },
      };
      try {
        const res = await fetch(`${base()}/v1/bookings`, {
          method: 'POST',
          headers: { authorization: `Bearer ${LOAD_KEY}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(10_000),
        });
        const json = (await res.json().catch(() => ({}))) as { booking?: { id: string } };
        results.push({ status: res.status, at: Date.now(), ...(json.booking ? { bookingId: json.booking.id } : {}) });
      } catch {
        results.push({ status: 0, at: Date.now() });
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  };
  const loops = Array.from({ length: connections }, loop);
  return {
    results,
    async stop() {
      running = false;
      await Promise.all(loops);
    },
  };
}

/** Of these bookings, those not yet routed (still DRAFT, or missing). */
export async function unrouted(pool: Pool, ids: readonly string[]): Promise<string[]> {
  const r = await pool.query<{ id: string }>(`select id from bookings where id = any($1::text[]) and status <> 'DRAFT'`, [ids]);
  const routed = new Set(r.rows.map((x) => x.id));
  return ids.filter((id) => !routed.has(id));
}

/** Pairs of active holds of one member that overlap: must be none. */
export async function overlaps(pool: Pool): Promise<number> {
  const r = await pool.query<{ n: number }>(
    `select count(*)::int as n from booking_members a join booking_members b
       on a.member_id = b.member_id and a.mode = b.mode and a.booking_id < b.booking_id and a.active and b.active and a.during && b.during`,
  );
  return r.rows[0]!.n;
}
