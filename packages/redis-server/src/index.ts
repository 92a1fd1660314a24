export { freePort } from './free-port';
export { pingRedis } from './ping-redis';
export {
  type ClusterNode,
  type ClusterOptions,
  type NodeStats,
  type RedisCluster,
  startCluster,
} from './redis-cluster';
export { commandCalls, info, redisCpuUs, redisReads } from './redis-info';
export { findRedisServer, type RedisServerOptions, RedisServerProcess } from './redis-server-process';
