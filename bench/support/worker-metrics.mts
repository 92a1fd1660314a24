/** Final statuses counted by a worker (`skillrun_executions_total{skill,status}` on its /metrics). */
export async function executionsByStatus(metricsPort: number): Promise<Map<string, number>> {
  const answer = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
  const text = await answer.text();
  const byStatus = new Map<string, number>();
  for (const match of text.matchAll(/^skillrun_executions_total\{([^}]*)\} (\S+)$/gm)) {
    const status = /status="([^"]*)"/.exec(match[1] ?? '')?.[1] ?? 'unknown';
    byStatus.set(status, (byStatus.get(status) ?? 0) + Number(match[2]));
  }
  return byStatus;
}
