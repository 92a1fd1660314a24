/**
 * What a reader takes before it reads executions (ExecutionEngine#readSession), to ask once it has
 * read them whether they may be told: taken after the read, a failover in between could confirm
 * on the promoted master what only the dead one had.
 */
export interface ReadSession {
  /**
   * Whether the executions as read may be told (a status, a listing's page, a batch's items, a
   * webhook's payload, by the status its delivery keeps): those `accepted` always (their launch
   * was confirmed), any later status once what this process read is on the replicas. Never rejects.
   */
  mayTell(...executions: { status: string }[]): Promise<boolean>;
}
