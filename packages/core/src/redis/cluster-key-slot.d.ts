/**
 * cluster-key-slot (ioredis' own dependency, which routes every command of a cluster client with
 * it) ships no types: its default export is Redis Cluster's key → hash slot function (CRC16 of the
 * key's hash tag, or of the whole key without one, modulo 16384).
 */
declare module 'cluster-key-slot' {
  function calculateSlot(key: string): number;
  export default calculateSlot;
}
