import type { TeamMember } from '../../db/queries/members.ts';

/**
 * A team member as every endpoint shows it. Name, email and avatar are personal data: only a
 * key holding team:members:read sees them (decisions.md §3); otherwise they are left out.
 */
export function memberJson(m: TeamMember, showPersonal: boolean) {
  return {
    object: 'team_member' as const,
    id: m.id,
    ...(showPersonal ? { name: m.name, email: m.email, avatar_url: m.avatar_url } : {}),
    role: m.role,
    skills: m.skills,
    is_active: m.is_active,
    timezone: m.timezone,
    team: { id: m.team_id, name: m.team_name },
  };
}
