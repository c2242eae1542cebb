import { StreamedList } from '../../api/http/streamed-list';

async function text(list: StreamedList<{ n: number }>, meta: unknown): Promise<string> {
  let out = '';
  for await (const chunk of list.body({ success: true, meta })) out += String(chunk);
  return out;
}

describe('StreamedList', () => {
  const meta = { requestId: 'r-1', version: 'v1', accountType: 'integrator', apiKeyId: 'k' };
  const toJson = (item: { n: number }) => ({ id: `o-${item.n}`, amount: item.n / 3, note: 'é"\\' });

  it.each([0, 1, 99, 100, 101, 250])(
    'writes exactly the bytes of JSON.stringify for %i items',
    async (count) => {
      const items = Array.from({ length: count }, (_, n) => ({ n }));
      expect(await text(new StreamedList(items, toJson), meta)).toBe(
        JSON.stringify({ success: true, data: items.map(toJson), meta }),
      );
    },
  );

  it('gives the event loop back between slices, so other requests are served while a long list goes out', async () => {
    const items = Array.from({ length: 1000 }, (_, n) => ({ n }));
    const events: string[] = [];
    let slices = 0;
    const reading = (async () => {
      for await (const chunk of new StreamedList(items, toJson).body({ success: true, meta })) {
        if (String(chunk).includes('"id"')) slices += 1;
      }
      events.push('list done');
    })();
    // What another request's work looks like to the loop: a callback queued once the list has started.
    setImmediate(() => events.push('other request'));
    await reading;
    expect(slices).toBe(10);
    expect(events).toEqual(['other request', 'list done']);
  });
});
