export { freePort } from './free-port';
export { pingRedis } from './ping-redis';
export { findRedisServer, type RedisServerOptions, RedisServerProcess } from './redis-server-process';
