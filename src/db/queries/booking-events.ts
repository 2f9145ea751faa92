import type { Db, Tx } from '../pool.ts';
import { exec, one } from '../pool.ts';

export type BookingEventType =
  | 'BOOKING_CREATED'
  | 'BOOKING_UPDATED'
  | 'BOOKING_CANCELLED'
  | 'BOOKING_RESCHEDULED'
  | 'BOOKING_COMPLETED'
  | 'BOOKING_NO_SHOW'
  | 'ASSIGNMENT_CHANGED';

export interface BookingEventRow {
  id: string;
  organization_id: string;
  mode: 'test' | 'live';
  booking_id: string | null;
  type: BookingEventType;
  payload: { event: BookingEventType; timestamp: string; data: Record<string, unknown> };
  created_at: Date;
}

export async function insertEvent(tx: Tx, e: Omit<BookingEventRow, 'created_at'>): Promise<void> {
  await exec(
    tx,
    `insert into booking_events (id, organization_id, mode, booking_id, type, payload) values ($1, $2, $3, $4, $5, $6)`,
    [e.id, e.organization_id, e.mode, e.booking_id, e.type, JSON.stringify(e.payload)],
  );
}

export function findEvent(db: Db, id: string): Promise<BookingEventRow | undefined> {
  return one<BookingEventRow>(db, 'select * from booking_events where id = $1', [id]);
}
