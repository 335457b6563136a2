import { expect, it } from 'vitest';
import { startRedisServer } from './redis-server.js';

it('fails with install instructions, not a skip, when the Redis server binary is missing', async () => {
  await expect(startRedisServer({ command: 'redis-server-not-installed' })).rejects.toThrow(
    'redis-server-not-installed is not installed (not found on PATH), and the @pay/store-redis tests run against a real Redis. Install it',
  );
});
