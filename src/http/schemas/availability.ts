import { Type } from 'typebox';
import { DateTime } from './common.ts';

const DATE = { format: 'date', description: 'calendar date YYYY-MM-DD, read in `timezone`' };

export const AvailabilityQuery = Type.Object({
  event_type_id: Type.String({ minLength: 1, maxLength: 255, description: 'alias eventTypeId' }),
  start_date: Type.String({ ...DATE, description: 'first local date, inclusive (alias startDate)' }),
  end_date: Type.String({
    ...DATE,
    description: 'last local date, inclusive; at most 62 days in all (61 after start_date) (alias endDate)',
  }),
  timezone: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'IANA zone the dates are read in; default UTC' })),
  assigned_to_id: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'restrict to one host: a member id (UUID; anything else is 400), alias assignedToId',
    }),
  ),
});

export const AvailabilityResponse = Type.Object(
  {
    success: Type.Literal(true),
    slots: Type.Array(Type.Object({ start: DateTime, end: DateTime }), {
      description: 'in time order; `start` is what booking create accepts',
    }),
    totalSlots: Type.Integer(),
  },
  {
    $id: 'Availability',
    description: 'Bookable slots of an event type.',
    examples: [
      {
        success: true,
        slots: [
          { start: '2026-12-01T09:00:00.000Z', end: '2026-12-01T09:30:00.000Z' },
          { start: '2026-12-01T09:30:00.000Z', end: '2026-12-01T10:00:00.000Z' },
        ],
        totalSlots: 2,
      },
    ],
  },
);
