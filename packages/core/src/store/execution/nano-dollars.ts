/**
 * Costs are counted in integer nano-dollars (1e-9 USD), so that Redis adds them exactly (HINCRBY)
 * and the cheapest token prices (fractions of a dollar per million tokens) still count.
 */
export const NANO_DOLLARS = 1e9;

export function usdOfNano(nano: number): number {
  return Number((nano / NANO_DOLLARS).toFixed(9));
}
