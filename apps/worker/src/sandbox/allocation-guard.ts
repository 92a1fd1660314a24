import bufferModule from 'node:buffer';
import { syncBuiltinESMExports } from 'node:module';
import { isAnyArrayBuffer, isSharedArrayBuffer } from 'node:util/types';
import { getHeapStatistics } from 'node:v8';
import type { OffHeapLimit } from './off-heap-limit';

const WASM_PAGE_BYTES = 65_536;

/** How many bytes a call is about to allocate outside the heap, from its arguments and receiver. */
type Size = (args: unknown[], self: unknown) => number;

const TYPED_ARRAYS = [
  'Int8Array',
  'Uint8Array',
  'Uint8ClampedArray',
  'Int16Array',
  'Uint16Array',
  'Int32Array',
  'Uint32Array',
  'Float16Array',
  'Float32Array',
  'Float64Array',
  'BigInt64Array',
  'BigUint64Array',
];

/**
 * Makes every way a skill allocates memory outside the heap ask `limit` first, so that none takes
 * its thread past the limit, even in a loop that never yields: ArrayBuffer and SharedArrayBuffer
 * (made, copied, resized), the typed arrays (made, copied), Buffer's factories (which Node's own
 * `fs`, `zlib` and streams call too), WebAssembly memories (made, grown from JavaScript) and
 * TextEncoder. Run in a sandbox thread before any skill loads, and only there. Node's internals
 * keep their references to the originals; a skill reaches none (a constructor's
 * `prototype.constructor`, and Buffer's own prototype, are the guarded constructors too). What
 * still allocates without asking (Node's native code: sockets, crypto; a `vm` context's own
 * constructors; growth from inside WebAssembly code) counts towards the limit all the same: the
 * next allocation that asks sees it, and the thread checks as its loop turns.
 */
export function guardAllocations(limit: OffHeapLimit): void {
  const guarded = new Guarded(limit);
  const scope = globalThis;
  const byteLength: Size = (_, self) => (self as ArrayBufferView).byteLength;
  const toLength: Size = ([length], self) => count(length) - (self as ArrayBuffer).byteLength;

  // Where V8 leaves a resizable ArrayBuffer's growth out of its count, the buffer counts at the
  // most it may grow to, from the start, as shared memory does.
  const resizesCounted = countsResizes(scope.ArrayBuffer);
  guarded.construct(
    scope,
    'ArrayBuffer',
    ([length, options]) =>
      resizesCounted ? count(length) : Math.max(count(length), count(field(options, 'maxByteLength'))),
    (buffer) => {
      const { resizable, maxByteLength, byteLength } = buffer as ResizableArrayBuffer;
      if (resizable && !resizesCounted) limit.share(buffer, maxByteLength - byteLength);
    },
  );
  // Shared memory counts at the most it may grow to, from the start (off-heap-limit.ts).
  guarded.construct(
    scope,
    'SharedArrayBuffer',
    ([length, options]) => Math.max(count(length), count(field(options, 'maxByteLength'))),
    (buffer, bytes) => limit.share(buffer, bytes),
  );
  guarded.method(scope.ArrayBuffer.prototype, 'slice', byteLength);
  guarded.method(scope.SharedArrayBuffer.prototype, 'slice', byteLength);
  for (const name of ['transfer', 'transferToFixedLength']) {
    guarded.method(scope.ArrayBuffer.prototype, name, toLength);
  }
  if (resizesCounted) guarded.method(scope.ArrayBuffer.prototype, 'resize', toLength);

  const typedArray = Object.getPrototypeOf(scope.Uint8Array) as { prototype: object };
  for (const name of TYPED_ARRAYS) {
    const array = Reflect.get(scope, name) as { BYTES_PER_ELEMENT: number } | undefined;
    // Float16Array is not in every version of Node.
    if (array) guarded.construct(scope, name, ([source]) => elements(source) * array.BYTES_PER_ELEMENT);
  }
  // Copies as long as the array (slice, map and filter make theirs through the constructor above,
  // unless a skill changes the array's `constructor`).
  for (const name of ['slice', 'map', 'filter', 'toReversed', 'toSorted', 'with']) {
    guarded.method(typedArray.prototype, name, byteLength);
  }

  const { Buffer } = scope;
  // Buffer extends Uint8Array: `Object.getPrototypeOf(Buffer)` would be the original.
  Object.setPrototypeOf(Buffer, scope.Uint8Array);
  for (const name of ['alloc', 'allocUnsafe', 'allocUnsafeSlow']) {
    guarded.method(Buffer, name, ([size]) => count(size));
  }
  guarded.method(Buffer, 'from', ([value, encoding]) => bufferFrom(value, encoding));
  guarded.method(Buffer, 'concat', ([list, total]) => (total === undefined ? lengths(list) : count(total)));
  guarded.method(Buffer, 'copyBytesFrom', ([view]) => (view as ArrayBufferView).byteLength);
  // node:buffer's own: the deprecated SlowBuffer, and transcode (twice the bytes at most).
  guarded.method(bufferModule, 'SlowBuffer', ([size]) => count(size));
  guarded.method(bufferModule, 'transcode', ([source]) => 2 * (source as ArrayBufferView).byteLength);
  syncBuiltinESMExports();
  guarded.method(scope.TextEncoder.prototype, 'encode', ([input]) => utf8Bytes(input));

  const wasm = Reflect.get(scope, 'WebAssembly') as { Memory: { prototype: object } };
  guarded.construct(
    wasm,
    'Memory',
    ([descriptor]) =>
      count(field(descriptor, field(descriptor, 'shared') === true ? 'maximum' : 'initial')) *
      WASM_PAGE_BYTES,
    (memory, bytes) => {
      if (isSharedArrayBuffer((memory as { buffer: unknown }).buffer)) limit.share(memory, bytes);
    },
  );
  guarded.method(wasm.Memory.prototype, 'grow', ([delta], self) =>
    isSharedArrayBuffer((self as { buffer: unknown }).buffer) ? 0 : count(delta) * WASM_PAGE_BYTES,
  );
}

/** ES2024's, which the compiler's libraries here do not know. */
interface ResizableArrayBuffer extends ArrayBuffer {
  readonly resizable: boolean;
  readonly maxByteLength: number;
  resize(length: number): void;
}

/**
 * Whether V8 counts what a resizable ArrayBuffer grows by, as it counts other buffers (Node 24's
 * does, Node 20's does not), asked of V8 with a buffer grown by a MiB. Memory only comes back
 * between two reads if a collection ran, which would answer "no": the buffers would count twice.
 */
function countsResizes(original: ArrayBufferConstructor): boolean {
  const probe = 1024 * 1024;
  const Resizable = original as unknown as new (length: number, options: object) => ResizableArrayBuffer;
  const buffer = new Resizable(0, { maxByteLength: probe });
  const before = getHeapStatistics().external_memory;
  buffer.resize(probe);
  return getHeapStatistics().external_memory - before >= probe;
}

/** Replaces functions with ones that reserve what they will allocate first. */
class Guarded {
  constructor(private readonly limit: OffHeapLimit) {}

  /**
   * `holder[name]`, a constructor: reserves what `size` says, constructs, and tells `made` what it
   * made and the bytes reserved for it.
   */
  construct(holder: object, name: string, size: Size, made?: (made: object, bytes: number) => void): void {
    const original = Reflect.get(holder, name) as { prototype: object };
    const guarded = this.method(holder, name, size, made);
    // What `new value.constructor(n)` reaches, and a typed array's species (slice, map, filter).
    Object.defineProperty(original.prototype, 'constructor', { value: guarded });
  }

  /**
   * `holder[name]`, a function: reserves what `size` says, then runs (called, or constructed:
   * then `made` is told what it made and the bytes reserved for it). Returns what replaced it.
   */
  method(
    holder: object,
    name: string,
    size: Size,
    made?: (made: object, bytes: number) => void,
  ): object | undefined {
    const original = Reflect.get(holder, name) as ((...args: unknown[]) => unknown) | undefined;
    // Not in every version of Node (ArrayBuffer's transfer; SlowBuffer, deprecated).
    if (!original) return undefined;
    const guarded = new Proxy(original, {
      apply: (target, self, args) => {
        this.reserve(size(args, self));
        return Reflect.apply(target, self, args);
      },
      construct: (target, args, newTarget) => {
        const bytes = this.reserve(size(args, undefined));
        const constructed = Reflect.construct(target, args, newTarget);
        made?.(constructed, bytes);
        return constructed;
      },
    });
    Object.defineProperty(holder, name, { value: guarded });
    return guarded;
  }

  /** Reserves `bytes` (none when they are not a size), and says how many. */
  private reserve(bytes: number): number {
    const reserved = Number.isFinite(bytes) && bytes > 0 ? bytes : 0;
    this.limit.reserve(reserved);
    return reserved;
  }
}

/** A length given as a number (or a numeric string, which the constructors accept too). */
function count(value: unknown): number {
  return typeof value === 'number' || typeof value === 'string' ? Number(value) : 0;
}

function field(options: unknown, name: string): unknown {
  return typeof options === 'object' && options !== null ? Reflect.get(options, name) : undefined;
}

/**
 * The elements of a typed array made from `source`: a length, or the length of what it copies
 * (an iterable without one is first spread on the heap, which Node bounds), or none of its own
 * when it views a buffer.
 */
function elements(source: unknown): number {
  if (typeof source !== 'object' || source === null) return count(source);
  return isAnyArrayBuffer(source) ? 0 : count(Reflect.get(source, 'length'));
}

function bufferFrom(value: unknown, encoding: unknown): number {
  if (typeof value === 'string') return Buffer.byteLength(value, encoding as BufferEncoding);
  return elements(value);
}

function lengths(list: unknown): number {
  if (!Array.isArray(list)) return 0;
  let total = 0;
  for (const item of list) total += count(field(item, 'length'));
  return total;
}

function utf8Bytes(input: unknown): number {
  return typeof input === 'string' ? Buffer.byteLength(input) : 0;
}
