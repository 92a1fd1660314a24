import { Type } from '@sinclair/typebox';

/** The gateway's settings for the operators' job dashboard (bull-board at /admin/queues). */
export const QueueDashboardConfig = {
  QUEUE_DASHBOARD: Type.Boolean({
    default: true,
    description: 'Serve the job dashboard at /admin/queues (admin credentials only); false turns it off.',
  }),
  QUEUE_DASHBOARD_ACTIONS: Type.Boolean({
    default: false,
    description: 'Let the dashboard change jobs and queues (retry, clean, pause, …); read-only by default.',
  }),
};
