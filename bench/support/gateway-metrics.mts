/**
 * Invocations a service gateway has accepted of one skill (`skillrun_invocations_accepted_total` on
 * its /metrics): a batch's items each count as one, so this counts what a batch load started.
 */
export async function acceptedInvocations(gatewayUrl: string, skillId: string): Promise<number> {
  const answer = await fetch(`${gatewayUrl}/metrics`);
  const text = await answer.text();
  let accepted = 0;
  for (const match of text.matchAll(/^skillrun_invocations_accepted_total\{([^}]*)\} (\S+)$/gm)) {
    if (/skill="([^"]*)"/.exec(match[1] ?? '')?.[1] === skillId) accepted += Number(match[2]);
  }
  return accepted;
}
