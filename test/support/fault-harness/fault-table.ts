import type { History } from './history';

/** One fault's line of the table docs/reliability.md holds. */
export interface FaultRow {
  fault: string;
  ackReplicas: number;
  /** Invocations sent per second over the fault's window. */
  load: number;
  acknowledged: number;
  lost: number;
  duplicated: number;
  /** Answered 503. */
  refused: number;
  /** Sent, and no answer came (connection refused or reset). */
  unanswered: number;
  /** From the fault (or its heal) to serving again. */
  serveAgainMs: number;
}

/** The row of a fault whose window is [from, to): what was sent then, and what became of it. */
export function faultRow(
  history: History,
  fault: string,
  ackReplicas: number,
  window: { from: number; to: number },
  serveAgainMs: number,
): FaultRow {
  const sent = history.sent.filter((one) => one.at >= window.from && one.at < window.to);
  const acknowledged = history.acknowledged(window.from, window.to);
  return {
    fault,
    ackReplicas,
    load: Math.round(sent.length / ((window.to - window.from) / 1000)),
    acknowledged: acknowledged.length,
    lost: history.lost(acknowledged).length,
    duplicated: history.duplicated(acknowledged).length,
    refused: sent.filter((one) => one.status === 503).length,
    unanswered: sent.filter((one) => one.status === 'none').length,
    serveAgainMs,
  };
}

/** The rows as a Markdown table. */
export function faultTable(rows: readonly FaultRow[]): string {
  const lines = [
    '| fault | `ACK_REPLICAS` | load (invocations/s) | acknowledged (202) | lost | duplicated | refused (503) | no answer | time to serve again |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows.map(
      (row) =>
        `| ${row.fault} | ${row.ackReplicas} | ${row.load} | ${row.acknowledged} | ${row.lost} | ${row.duplicated} | ${row.refused} | ${row.unanswered} | ${(row.serveAgainMs / 1000).toFixed(1)} s |`,
    ),
  ];
  return lines.join('\n');
}

/**
 * One line a fault loop reads (scripts/fault-loop.mts): of the executions acknowledged with a
 * durable ACK_REPLICAS, how many are gone (`lost`), still not ended when the finals were read
 * (`stuck`), and run more than once (`duplicated`).
 */
export function summaryLine(scenario: string, history: History): string {
  const acknowledged = history.acknowledged();
  const finals = acknowledged.map((id) => history.finals.get(id));
  return `fault summary: ${JSON.stringify({
    scenario,
    acknowledged: acknowledged.length,
    lost: finals.filter((final) => final === undefined || final === 'missing').length,
    stuck: finals.filter((final) => final === 'unended').length,
    duplicated: history.duplicated(acknowledged).length,
  })}`;
}
