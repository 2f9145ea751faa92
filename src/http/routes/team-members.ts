import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { availableMembers } from '../../domain/members/available.ts';
import { getMember, listMembers } from '../../domain/members/list.ts';
import type { AppDeps } from '../deps.ts';
import { errors } from '../schemas/common.ts';
import { AvailableMember, AvailableQuery, MemberListQuery, OffsetPagination, TeamMember } from '../schemas/member.ts';

const tags = ['team members'];

export const teamMemberRoutes: FastifyPluginAsyncTypebox<{ deps: AppDeps }> = async (app, { deps }) => {
  app.get(
    '/team/members',
    {
      schema: {
        tags,
        summary: 'List team members',
        description: 'Names, emails and avatars only for keys holding team:members:read.',
        querystring: MemberListQuery,
        response: { 200: Type.Object({ success: Type.Literal(true), members: Type.Array(TeamMember), pagination: OffsetPagination }), ...errors(400) },
      },
    },
    async (req) => {
      const auth = req.auth!;
      return { success: true as const, ...(await listMembers(deps.db, auth.organizationId, req.query, auth.scopes.has('team:members:read'))) };
    },
  );

  app.get(
    '/team/members/available',
    {
      schema: {
        tags,
        summary: 'Who is available on a date',
        description: 'Each active member\'s day in the member\'s own time zone; see docs/scheduling.md.',
        querystring: AvailableQuery,
        response: {
          200: Type.Object({
            success: Type.Literal(true),
            date: Type.String(),
            members: Type.Array(AvailableMember),
            pagination: OffsetPagination,
          }),
          ...errors(400),
        },
      },
    },
    async (req) => {
      const auth = req.auth!;
      return { success: true as const, ...(await availableMembers(deps.db, auth, req.query, deps.now(), auth.scopes.has('team:members:read'))) };
    },
  );

  app.get(
    '/team/members/:id',
    {
      schema: {
        tags,
        summary: 'Read one team member',
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 100, description: 'a member id (UUID); anything else is 400' }) }),
        response: { 200: Type.Object({ success: Type.Literal(true), member: TeamMember }), ...errors(400, 404) },
      },
    },
    async (req) => ({ success: true as const, member: await getMember(deps.db, req.auth!.organizationId, req.params.id, true) }),
  );
};
