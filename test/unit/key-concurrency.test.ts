import { KeyConcurrency } from '../../api/http/key-concurrency';

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('KeyConcurrency', () => {
  it('lets a key hold at most its places, serves waiters in order, and never holds back another key', async () => {
    const gate = new KeyConcurrency(2);
    const order: string[] = [];
    const releases = new Map<string, () => void>();
    const take = (key: string, name: string) =>
      void gate.acquire(key).then((release) => {
        order.push(name);
        releases.set(name, release);
      });
    take('a', 'a1');
    take('a', 'a2');
    take('a', 'a3');
    take('a', 'a4');
    take('b', 'b1');
    await tick();
    expect(order).toEqual(['a1', 'a2', 'b1']);
    releases.get('a2')!();
    releases.get('a2')!();
    await tick();
    expect(order).toEqual(['a1', 'a2', 'b1', 'a3']);
    releases.get('a1')!();
    await tick();
    expect(order).toEqual(['a1', 'a2', 'b1', 'a3', 'a4']);
    for (const name of ['a3', 'a4', 'b1']) releases.get(name)!();
    await tick();
    expect(gate.activeKeys).toBe(0);
  });

  it('refuses a concurrency below 1', () => {
    expect(() => new KeyConcurrency(0)).toThrow('concurrency must be at least 1, got 0');
  });
});
