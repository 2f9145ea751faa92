import type { Db } from '../../db/pool.ts';
import type { MemberFilter } from '../../db/queries/members.ts';
import * as members from '../../db/queries/members.ts';
import { NotFound, ValidationError } from '../errors.ts';
import { memberJson } from './present.ts';
import { isMemberId } from './member-id.ts';

/** Largest `limit` of the team-member lists (documented in docs/scheduling.md). */
export const MAX_MEMBER_LIMIT = 100;
export const MAX_SKILLS = 20;

export interface MemberListQuery {
  is_active?: boolean;
  team_id?: string;
  skills?: string;
  limit: number;
  offset: number;
}

/** `skills=a,b`: members holding every listed skill. */
export function parseSkills(raw: string | undefined): string[] | undefined {
  if (raw === undefined) return undefined;
  const skills = raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  if (skills.length === 0) throw new ValidationError('query parameter "skills" must name at least one skill (comma-separated)', 'skills');
  if (skills.length > MAX_SKILLS) throw new ValidationError(`query parameter "skills" may name at most ${MAX_SKILLS} skills`, 'skills');
  return skills;
}

export function filterOf(organizationId: string, q: Omit<MemberListQuery, 'limit' | 'offset'>): MemberFilter {
  return { organizationId, isActive: q.is_active, teamId: q.team_id, skills: parseSkills(q.skills) };
}

export function page(total: number, limit: number, offset: number) {
  return { total, limit, offset, has_more: offset + limit < total };
}

export async function listMembers(db: Db, organizationId: string, q: MemberListQuery, showPersonal: boolean) {
  const { total, members: list } = await members.list(db, filterOf(organizationId, q), q.limit, q.offset);
  return { members: list.map((m) => memberJson(m, showPersonal)), pagination: page(total, q.limit, q.offset) };
}

export async function getMember(db: Db, organizationId: string, id: string, showPersonal: boolean) {
  if (!isMemberId(id)) throw new ValidationError(`path parameter "id" must be a member id (UUID), got "${id}"`, 'id');
  const m = await members.findInOrganization(db, organizationId, id);
  if (!m) throw new NotFound(`team member "${id}" not found`);
  return memberJson(m, showPersonal);
}
