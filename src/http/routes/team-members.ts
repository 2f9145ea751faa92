import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { availableMembers } from '../../domain/members/available.ts';
import { getMember, listMembers } from '../../domain/members/list.ts';
import type { AppDeps } from '../deps.ts';
import { errors, ref } from '../schemas/common.ts';
import { AvailableMember, AvailableQuery, MemberListQuery, OffsetPagination, TeamMember } from '../schemas/member.ts';

const tags = ['team members'];

export const teamMemberRoutes: FastifyPluginAsyncTypebox<{ deps: AppDeps }> = async (app, { deps }) => {
  app.get(
    '/team/members',
    {
      schema: {
        tags,
        operationId: 'listTeamMembers',
        summary: 'List team members',
        description: 'Names, emails and avatars only for keys holding team:members:read.',
        querystring: MemberListQuery,
        response: {
          200: Type.Object(
            { success: Type.Literal(true), members: Type.Array(ref(TeamMember)), pagination: ref(OffsetPagination) },
            { description: 'a page of team members' },
          ),
          ...errors(400),
        },
      },
    },
    async (req) => {
      const auth = req.auth!;
      return {
        success: true as const,
        ...(await listMembers(deps.db, auth.organizationId, req.query, auth.scopes.has('team:members:read'))),
      };
    },
  );

  app.get(
    '/team/members/available',
    {
      schema: {
        tags,
        operationId: 'listAvailableTeamMembers',
        summary: 'Who is available on a date',
        description: "Each active member's day in the member's own time zone; see docs/scheduling.md.",
        querystring: AvailableQuery,
        response: {
          200: Type.Object(
            {
              success: Type.Literal(true),
              date: Type.String({ description: 'the date asked for, YYYY-MM-DD', examples: ['2026-12-01'] }),
              members: Type.Array(ref(AvailableMember)),
              pagination: ref(OffsetPagination),
            },
            { description: 'a page of members with their day' },
          ),
          ...errors(400),
        },
      },
    },
    async (req) => {
      const auth = req.auth!;
      return {
        success: true as const,
        ...(await availableMembers(deps.db, auth, req.query, deps.now(), auth.scopes.has('team:members:read'))),
      };
    },
  );

  app.get(
    '/team/members/:id',
    {
      schema: {
        tags,
        operationId: 'getTeamMember',
        summary: 'Read one team member',
        params: Type.Object({
          id: Type.String({ format: 'uuid', maxLength: 100, description: 'a member id (UUID); anything else is 400' }),
        }),
        response: {
          200: Type.Object({ success: Type.Literal(true), member: ref(TeamMember) }, { description: 'the member' }),
          ...errors(400, 404),
        },
      },
    },
    async (req) => ({ success: true as const, member: await getMember(deps.db, req.auth!.organizationId, req.params.id, true) }),
  );
};
