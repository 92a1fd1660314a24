import type { SkillContext } from '@skillrun/skill';

export async function execute(input: { from: number; pause_ms: number }, ctx: SkillContext) {
  for (let n = input.from; n > 0; n--) {
    ctx.emit(`${n}…\n`); // text, seen as it comes: GET events `chunk`, client.stream(), invoke --wait
    await new Promise((resolve) => setTimeout(resolve, input.pause_ms));
  }
  ctx.emit({ liftoff: true }); // any JSON value may be a chunk
  return { lines: input.from + 1 }; // the result, as ever
}
