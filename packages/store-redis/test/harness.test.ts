import { startRedis } from '@pay/tooling/servers/redis';
import { expect, it } from 'vitest';

it('fails with install instructions, not a skip, when the Redis server binary is missing', async () => {
  await expect(startRedis({ command: 'redis-server-not-installed' })).rejects.toThrow(
    'redis-server-not-installed is not installed (not found on PATH), and these tests run against a real Redis. Install it',
  );
});
