import type { Db } from '../pool.ts';
import type { MemberRow } from '../schema.ts';
import { one, rows } from '../pool.ts';

/** A member with its team's name, as every read of this module returns it. */
export type TeamMember = MemberRow & { team_name: string };

const SELECT = `select m.*, t.name as team_name from members m join teams t on t.id = m.team_id`;

export function findInOrganization(db: Db, organizationId: string, id: string): Promise<TeamMember | undefined> {
  return one<TeamMember>(db, `${SELECT} where m.id = $1 and m.organization_id = $2`, [id, organizationId]);
}

/** Any member by id, whatever its organization (free/busy without a key). */
export function findById(db: Db, id: string): Promise<TeamMember | undefined> {
  return one<TeamMember>(db, `${SELECT} where m.id = $1`, [id]);
}

/** Active members among ids, in the organization, in the order of ids. */
export function activeByIds(db: Db, organizationId: string, ids: readonly string[]): Promise<TeamMember[]> {
  return rows<TeamMember>(
    db,
    `${SELECT} join unnest($2::uuid[]) with ordinality as wanted(id, n) on wanted.id = m.id
      where m.organization_id = $1 and m.is_active order by wanted.n`,
    [organizationId, ids],
  );
}

/**
 * Who hosts an event type, as SQL over members `m`, given SQL for the type's organization,
 * team and host_ids: the active members listed in host_ids, in that order, or, when host_ids
 * is null, the team's active members, oldest first. The one definition: hostsOfType binds it
 * to parameters, event-types.ts to an event_types row.
 */
export function hostsOfTypeSql(org: string, team: string, hostIds: string): { where: string; orderBy: string } {
  return {
    where: `m.organization_id = ${org} and m.is_active
            and (case when ${hostIds} is null then m.team_id = ${team} else m.id = any(${hostIds}) end)`,
    orderBy: `array_position(${hostIds}, m.id), m.created_at, m.id`,
  };
}

const HOSTS_OF_TYPE = hostsOfTypeSql('$1', '$2', '$3::uuid[]');

/** The active hosts of an event type, in host order (hostsOfTypeSql). */
export function hostsOfType(db: Db, type: { organization_id: string; team_id: string; host_ids: string[] | null }): Promise<TeamMember[]> {
  return rows<TeamMember>(db, `${SELECT} where ${HOSTS_OF_TYPE.where} order by ${HOSTS_OF_TYPE.orderBy}`, [
    type.organization_id,
    type.team_id,
    type.host_ids,
  ]);
}

export interface MemberFilter {
  organizationId: string;
  isActive?: boolean;
  teamId?: string;
  /** Members holding every one of these skills. */
  skills?: string[];
}

function where(f: MemberFilter): { sql: string; params: unknown[] } {
  const params: unknown[] = [f.organizationId];
  const parts = ['m.organization_id = $1'];
  if (f.isActive !== undefined) {
    params.push(f.isActive);
    parts.push(`m.is_active = $${params.length}`);
  }
  if (f.teamId !== undefined) {
    params.push(f.teamId);
    parts.push(`m.team_id = $${params.length}`);
  }
  if (f.skills && f.skills.length > 0) {
    params.push(f.skills);
    parts.push(`m.skills @> $${params.length}::text[]`);
  }
  return { sql: parts.join(' and '), params };
}

export async function list(db: Db, f: MemberFilter, limit: number, offset: number): Promise<{ total: number; members: TeamMember[] }> {
  const w = where(f);
  const total = await one<{ n: number }>(db, `select count(*) as n from members m where ${w.sql}`, w.params);
  const members = await rows<TeamMember>(
    db,
    `${SELECT} where ${w.sql} order by m.created_at, m.id limit $${w.params.length + 1} offset $${w.params.length + 2}`,
    [...w.params, limit, offset],
  );
  return { total: total?.n ?? 0, members };
}
