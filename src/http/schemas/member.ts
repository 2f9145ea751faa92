import { Type } from 'typebox';
import { MAX_MEMBER_LIMIT } from '../../domain/members/list.ts';
import { DateTime, Nullable } from './common.ts';

export const TeamMember = Type.Object({
  object: Type.Literal('team_member'),
  id: Type.String({ format: 'uuid' }),
  name: Type.Optional(Type.String({ description: 'only for keys with team:members:read' })),
  email: Type.Optional(Type.String({ description: 'only for keys with team:members:read' })),
  avatar_url: Type.Optional(Nullable(Type.String({ description: 'only for keys with team:members:read' }))),
  role: Type.String(),
  skills: Type.Array(Type.String()),
  is_active: Type.Boolean(),
  timezone: Type.String({ description: 'IANA zone of the member\'s working hours' }),
  team: Type.Object({ id: Type.String(), name: Type.String() }),
});

export const OffsetPagination = Type.Object({
  total: Type.Integer(),
  limit: Type.Integer(),
  offset: Type.Integer(),
  has_more: Type.Boolean(),
});

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
  date: Type.Optional(Type.String({ format: 'date', description: 'YYYY-MM-DD, read in each member\'s own zone; default today (UTC)' })),
  duration: Type.Integer({ minimum: 1, maximum: 1440, default: 30, description: 'minutes' }),
  ...filters,
  ...paging,
});

export const MemberAvailability = Type.Object({
  is_available: Type.Boolean(),
  next_available_slot: Nullable(DateTime),
  booked_slots: Type.Integer(),
  max_bookings_per_day: Type.Integer(),
});

export const AvailableMember = Type.Object({ ...TeamMember.properties, availability: MemberAvailability });
