/**
 * The `_meta` key of a tools/call that carries a budget for that call's execution (the invocation's
 * `context.budget`: max_tokens, max_cost_usd, max_steps, max_duration_ms), shared by its steps; it
 * is validated as POST invoke's is, a bad one answered as the tool's error result.
 */
export const BUDGET_META_KEY = 'io.skillrun/budget';
