import type { Db } from '../../db/pool.ts';
import type { EventTypeRow } from '../../db/queries/event-types.ts';
import type { MemberRow } from '../../db/queries/members.ts';
import { hostsOf, slotsForHosts } from '../availability/find-slots.ts';

export interface HostSlot {
  /** The event type's hosts, in host order. */
  hosts: MemberRow[];
  /** Whether GET /availability lists `start` (for assignedToId: lists it for that host). */
  listed: boolean;
  /** The hosts free at `start` (COLLECTIVE: all hosts or none). */
  memberIds: string[];
}

/**
 * freeHostsAt() of the availability engine, keeping the host list it loads: bookings need it
 * too (is assign_to a host, host order), and loading it once saves a round trip per create.
 */
export async function hostSlot(
  db: Db,
  caller: { organizationId: string; mode: 'test' | 'live' },
  eventType: EventTypeRow,
  start: Date,
  now: Date,
  opts: { assignedToId?: string; excludeBookingId?: string } = {},
): Promise<HostSlot> {
  const hosts = await hostsOf(db, eventType);
  const slots = await slotsForHosts(db, hosts, {
    organizationId: caller.organizationId,
    mode: caller.mode,
    eventType,
    from: start,
    to: new Date(start.getTime() + 1),
    now,
    assignedToId: opts.assignedToId,
    excludeBookingId: opts.excludeBookingId,
  });
  const hit = slots.find((s) => s.start === start.getTime());
  return { hosts, listed: hit !== undefined, memberIds: hit ? hit.memberIds : [] };
}
