import { Type } from 'typebox';
import { MAX_MEMBER_LIMIT } from '../../domain/members/list.ts';
import { DateTime, Nullable, ref } from './common.ts';

export { OffsetPagination } from './common.ts';

const MEMBER_EXAMPLE = {
  object: 'team_member',
  id: '6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b',
  name: 'Grace Hopper',
  email: 'grace@acme.example',
  avatar_url: null,
  role: 'MEMBER',
  skills: ['enterprise', 'german'],
  is_active: true,
  timezone: 'Europe/Berlin',
  team: { id: 'team_sales', name: 'Sales' },
};

export const TeamMember = Type.Object(
  {
    object: Type.Literal('team_member'),
    id: Type.String({ format: 'uuid' }),
    name: Type.Optional(Type.String({ description: 'only for keys with team:members:read' })),
    email: Type.Optional(Type.String({ description: 'only for keys with team:members:read' })),
    avatar_url: Type.Optional(Nullable(Type.String({ description: 'only for keys with team:members:read' }))),
    role: Type.String(),
    skills: Type.Array(Type.String()),
    is_active: Type.Boolean(),
    timezone: Type.String({ description: "IANA zone of the member's working hours" }),
    team: Type.Object({ id: Type.String(), name: Type.String() }),
  },
  { $id: 'TeamMember', description: 'A member of a team who can host bookings.', examples: [MEMBER_EXAMPLE] },
);

const paging = {
  limit: Type.Integer({ minimum: 1, maximum: MAX_MEMBER_LIMIT, default: 50, description: `1..${MAX_MEMBER_LIMIT}` }),
  offset: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 }),
};

const filters = {
  team_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  skills: Type.Optional(Type.String({ minLength: 1, maxLength: 2000, description: 'comma-separated; members holding every one' })),
};

export const MemberListQuery = Type.Object({ is_active: Type.Optional(Type.Boolean()), ...filters, ...paging });

export const AvailableQuery = Type.Object({
  date: Type.Optional(Type.String({ format: 'date', description: "YYYY-MM-DD, read in each member's own zone; default today (UTC)" })),
  duration: Type.Integer({ minimum: 1, maximum: 1440, default: 30, description: 'minutes' }),
  ...filters,
  ...paging,
});

const AVAILABILITY_EXAMPLE = { is_available: true, next_available_slot: null, booked_slots: 3, max_bookings_per_day: 8 };

export const MemberAvailability = Type.Object(
  {
    is_available: Type.Boolean(),
    next_available_slot: Nullable({ ...DateTime, description: 'for a fully booked member: the start of the next open slot' }),
    booked_slots: Type.Integer({ description: "active bookings starting on the date, in the member's zone" }),
    max_bookings_per_day: Type.Integer(),
  },
  { $id: 'MemberAvailability', examples: [AVAILABILITY_EXAMPLE] },
);

export const AvailableMember = Type.Object(
  { ...TeamMember.properties, availability: ref(MemberAvailability) },
  {
    $id: 'AvailableMember',
    description: 'A team member and their day.',
    examples: [{ ...MEMBER_EXAMPLE, availability: AVAILABILITY_EXAMPLE }],
  },
);
