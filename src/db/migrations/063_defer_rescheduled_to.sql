-- A reschedule cancels the old booking (which frees its external_id for the new one) before
-- it inserts the new booking, so rescheduled_to names a row that exists only later in the same
-- transaction. Checked at commit, the old booking is cancelled and linked in one UPDATE.
alter table bookings alter constraint bookings_rescheduled_to_fkey deferrable initially deferred;
