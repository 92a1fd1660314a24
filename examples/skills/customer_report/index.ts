import type { SkillContext } from '@skillrun/skill';

/** A page takes a tenth of a second: long enough to see who runs beside whom. */
export async function execute(input: { customer: string; pages: number }, ctx: SkillContext) {
  for (let page = 1; page <= input.pages; page++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    if (ctx.signal.aborted) throw ctx.signal.reason;
    ctx.progress(Math.round((page / input.pages) * 100));
  }
  return { customer: input.customer, pages: input.pages };
}
