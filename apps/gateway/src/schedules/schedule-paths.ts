import { ScheduleListQuery } from '@skillrun/core';
import { errors, json, ok, queryParameters } from '../http/openapi-parts';
import { MOST_BACKFILLED } from './schedule-backfill';

const tags = ['schedules'];
const scheduleId = { name: 'schedule_id', in: 'path', required: true, schema: { type: 'string' } };
const OWNED = "The caller's own schedules (an admin's: anyone's); any other is 404 SCHEDULE_NOT_FOUND.";

/** Ours: schedules, under /schedules. Each run is an ordinary execution naming its schedule_id. */
export const schedulePaths = {
  '/schedules': {
    post: {
      operationId: 'createSchedule',
      summary: 'Invoke a skill on a cron pattern or every N ms (ours)',
      description:
        'Exactly one of `cron` (5 or 6 fields, read in `timezone`, UTC by default) and `every_ms` (at least 1000; the first run at once). Checked as POST invoke would check the invocation now: the credentials, the version, the access and the inputs. Each due time runs once across every gateway, as the caller who made the schedule (its credentials checked again at each run: a revoked key makes failed runs, recorded in GET /schedules/{id}). Needs credentials.',
      tags,
      requestBody: { required: true, content: json('NewSchedule') },
      responses: {
        '201': ok('The schedule, with its next due times (Location: its URL).', 'Schedule', {
          Location: { description: "The schedule's URL.", schema: { type: 'string' } },
        }),
        ...errors('400', '401', '403', '404', '413', '415', '429', '503'),
      },
    },
    get: {
      operationId: 'listSchedules',
      summary: "The caller's schedules, in the order they were made (an admin's: everyone's) (ours)",
      tags,
      parameters: queryParameters(ScheduleListQuery),
      responses: {
        '200': ok('One page; follow next_cursor for more.', 'ScheduleListPage'),
        ...errors('400', '401', '403', '503'),
      },
    },
  },
  '/schedules/{schedule_id}': {
    get: {
      operationId: 'getSchedule',
      summary: 'One schedule, with its latest runs (ours)',
      description: `Each run: its due time, and the execution it launched (with that execution's status now), or why it was skipped or failed. ${OWNED}`,
      tags,
      parameters: [scheduleId],
      responses: { '200': ok('The schedule.', 'Schedule'), ...errors('401', '404', '503') },
    },
    patch: {
      operationId: 'updateSchedule',
      summary: 'Pause, resume or change a schedule (ours)',
      description: `\`paused\` pauses (no due time comes until it is resumed) or resumes; \`cron\` or \`every_ms\` replaces the timing; new \`inputs\`, \`context\` or \`version\` are checked again, as the caller the schedule runs as. ${OWNED}`,
      tags,
      parameters: [scheduleId],
      requestBody: { required: true, content: json('ScheduleChange') },
      responses: {
        '200': ok('The schedule as it is now.', 'Schedule'),
        ...errors('400', '401', '403', '404', '413', '415', '503'),
      },
    },
    delete: {
      operationId: 'deleteSchedule',
      summary: 'Deletes a schedule: nothing more runs of it (ours)',
      description: `Its executions stay. ${OWNED}`,
      tags,
      parameters: [scheduleId],
      responses: { '204': { description: 'Deleted.' }, ...errors('401', '404', '503') },
    },
  },
  '/schedules/{schedule_id}/backfill': {
    post: {
      operationId: 'backfillSchedule',
      summary: "Runs a past window's due times now, each once (ours)",
      description: `Temporal's backfill: each due time of the cron or interval in [from, to) that has no run recorded runs now, as its own due time would have (the caller the schedule runs as, its overlap policy; a paused schedule's too), and shows in GET /schedules/{id}. At most ${MOST_BACKFILLED} due times a call; \`to\` not after now. ${OWNED}`,
      tags,
      parameters: [scheduleId],
      requestBody: { required: true, content: json('ScheduleBackfill') },
      responses: {
        '202': ok('The due times queued, and those that had run.', 'ScheduleBackfillAccepted'),
        ...errors('400', '401', '404', '413', '415', '503'),
      },
    },
  },
};
