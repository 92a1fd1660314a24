import { BatchItem, type BatchRequest, SchemaValidator, SkillError } from '@skillrun/core';
import type { Invocation } from '../invocations/invocation-service';

const itemValidator = new SchemaValidator(BatchItem, 'batch item');

/** What a batch's items ask for. */
export interface ItemInvocations {
  /** Each item that is an invocation, as POST invoke would take it, with its place. */
  invocations: { index: number; invocation: Invocation }[];
  /** Why each item that is not one (by place) is refused. */
  refused: Map<number, unknown>;
  /**
   * Items that repeat an earlier item's idempotency_key with the same item, and that item's place:
   * they get its execution, as a second request with the key would (not a wait for the first
   * one's claim, which is settled only after the launch).
   */
  repeats: Map<number, number>;
}

/**
 * A batch's items as invocations: each item validated on its own (its errors' paths relative to
 * it), its body POST invoke's with the batch's caller, the rest (`base`) the batch request's.
 */
export function itemInvocations(
  items: unknown[],
  caller: BatchRequest['caller'],
  base: Pick<Invocation, 'headers' | 'address' | 'origin' | 'identity'>,
): ItemInvocations {
  const found: ItemInvocations = { invocations: [], refused: new Map(), repeats: new Map() };
  const keyed = new Map<string, { index: number; item: string }>();
  for (const [index, raw] of items.entries()) {
    try {
      const { idempotency_key, ...item } = itemValidator.parse(raw);
      if (idempotency_key !== undefined) {
        const first = keyed.get(idempotency_key);
        if (first) {
          if (first.item !== JSON.stringify(item)) throw keyReused();
          found.repeats.set(index, first.index);
          continue;
        }
        keyed.set(idempotency_key, { index, item: JSON.stringify(item) });
      }
      found.invocations.push({
        index,
        invocation: {
          ...base,
          skillId: item.skill_id,
          body: { ...item, caller },
          versionQuery: undefined,
          ...(idempotency_key === undefined ? {} : { idempotencyKey: idempotency_key }),
        },
      });
    } catch (error) {
      found.refused.set(index, error);
    }
  }
  return found;
}

/** What POST invoke answers a key sent again with another request (IdempotencyKeys.claim). */
function keyReused(): SkillError {
  return new SkillError(
    'IDEMPOTENCY_KEY_REUSED',
    "This idempotency_key is an earlier item's, with a different item (skill, version, inputs or context)",
  );
}
