import { TaskListQuery } from '@skillrun/core';
import { errors, executionId, json, ok, queryParameters } from '../http/openapi-parts';

const tags = ['tasks'];
const AUTH =
  'Needs credentials of an assignee of the skill (its `task.assignees`, or anyone when it names none) or an admin; a task the caller may not take is 404.';
const token = { name: 'token', in: 'path', required: true, schema: { type: 'string' } };

/** Ours: the endpoints of `task` skills' work, under /tasks. */
export const taskPaths = {
  '/tasks': {
    get: {
      operationId: 'listTasks',
      summary: 'The open tasks the caller may take, oldest first (ours)',
      description: `Open and claimed tasks of \`task\` skills, optionally of one skill. ${AUTH}`,
      tags,
      parameters: queryParameters(TaskListQuery),
      responses: {
        '200': ok('One page; follow next_cursor for more.', 'TaskListPage'),
        ...errors('400', '401', '503'),
      },
    },
  },
  '/tasks/{execution_id}': {
    get: {
      operationId: 'getTask',
      summary: 'One open task (ours)',
      description: AUTH,
      tags,
      parameters: [executionId],
      responses: { '200': ok('The task.', 'TaskView'), ...errors('401', '404', '409', '503') },
    },
  },
  '/tasks/{execution_id}/claim': {
    post: {
      operationId: 'claimTask',
      summary: 'Claim a task: only the claimant may then hand it in or decline it (ours)',
      description: `Claiming again is harmless; another caller's claim is 409 TASK_CLAIMED. ${AUTH}`,
      tags,
      parameters: [executionId],
      responses: { '200': ok('The task, claimed.', 'TaskView'), ...errors('401', '404', '409', '503') },
    },
  },
  '/tasks/{execution_id}/complete': {
    post: {
      operationId: 'completeTask',
      summary: 'Hand a task in with its output (ours)',
      description: `The output must match the skill's output schema (400 naming each violation, and the task stays open). The execution completes with it, atomically: of two hand-ins at once one wins and the other is 409 EXECUTION_ENDED; a composite waiting for it goes on. ${AUTH}`,
      tags,
      parameters: [executionId],
      requestBody: { required: true, content: json('TaskCompletion') },
      responses: {
        '200': ok('The execution, completed.', 'Execution'),
        ...errors('400', '401', '404', '409', '413', '415', '503'),
      },
    },
  },
  '/tasks/{execution_id}/decline': {
    post: {
      operationId: 'declineTask',
      summary: 'Decline a task: its execution fails with TASK_DECLINED and the reason (ours)',
      description: AUTH,
      tags,
      parameters: [executionId],
      requestBody: { required: false, content: json('TaskDecline') },
      responses: {
        '200': ok('The execution, failed.', 'Execution'),
        ...errors('400', '401', '404', '409', '415', '503'),
      },
    },
  },
  '/tasks/{execution_id}/link': {
    post: {
      operationId: 'linkTask',
      summary: 'A one-time link that hands the task in without credentials (ours)',
      description: `A signed link (HS256, TASK_LINK_SECRET) that expires after TASK_LINK_TTL_SECONDS and completes the task once, e.g. for a person reached by e-mail, on the caller's behalf: 409 TASK_CLAIMED while another caller holds the task. ${AUTH}`,
      tags,
      parameters: [executionId],
      responses: { '201': ok('The link.', 'TaskLink'), ...errors('401', '404', '409', '503') },
    },
  },
  '/tasks/link/{token}': {
    get: {
      operationId: 'getTaskByLink',
      summary: 'The task a one-time link is for, without credentials (ours)',
      tags,
      parameters: [token],
      responses: { '200': ok('The task.', 'TaskView'), ...errors('403', '404', '409', '503') },
    },
  },
  '/tasks/link/{token}/complete': {
    post: {
      operationId: 'completeTaskByLink',
      summary: 'Hand a task in by its one-time link, without credentials (ours)',
      description:
        'As POST complete by the caller who issued the link (409 TASK_CLAIMED once another caller has claimed the task); the link works once (409 EXECUTION_ENDED after), and not for a later attempt of the task.',
      tags,
      parameters: [token],
      requestBody: { required: true, content: json('TaskCompletion') },
      responses: {
        '200': ok('The execution, completed.', 'Execution'),
        ...errors('400', '403', '404', '409', '413', '415', '503'),
      },
    },
  },
};
