/**
 * What GET /admin/fleet answers. Types only, in a file of their own, so that the console (a browser
 * bundle) reads the same shapes without the server code that builds them.
 */
export interface FleetWorker {
  worker_id: string;
  /** When its lease lapses unless renewed (every HEARTBEAT_INTERVAL_MS). */
  lease_expires_at: string;
  hosts: { skill_id: string; version: string }[];
}

export interface FleetQueue {
  skill_id: string;
  version: string;
  /** Jobs by state over the version's queues (normal and high): waiting counts prioritized ones. */
  waiting: number;
  active: number;
  delayed: number;
  /** Seconds the oldest job next in line has waited; 0 when none waits. */
  oldest_waiting_seconds: number;
  /** Live workers hosting it. */
  workers: number;
  /** An operator paused its skill: its jobs wait, none starts (POST /skills/{id}/resume). */
  paused: boolean;
}

export interface Fleet {
  workers: FleetWorker[];
  queues: FleetQueue[];
  read_at: string;
}
