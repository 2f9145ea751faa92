import { randomBytes } from 'node:crypto';

/** Booking ids: "bkg_" and 24 hex characters of randomness (96 bits). */
export function newBookingId(): string {
  return `bkg_${randomBytes(12).toString('hex')}`;
}
