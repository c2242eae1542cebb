import { Readable } from 'node:stream';

/** Items serialized per slice: a few hundred kilobytes at most, a millisecond or two of the event loop. */
const ITEMS_PER_SLICE = 100;

/**
 * A list answer too large to serialize in one go. The envelope is written in slices with a turn of the event
 * loop between them, so other requests are answered while a list of thousands of rows goes out. The bytes are
 * exactly those of `JSON.stringify` of the whole envelope.
 */
export class StreamedList<T = unknown> {
  constructor(
    readonly items: readonly T[],
    /** Turns one stored row into its response object; runs per slice, so it never holds the loop either. */
    readonly toJson: (item: T) => unknown,
  ) {}

  /** `envelope` with `data` left out; it is placed where `data` would be. */
  body(envelope: { success: true; meta: unknown }): Readable {
    const { items, toJson } = this;
    async function* slices(): AsyncGenerator<string> {
      yield `{"success":true,"data":[`;
      for (let start = 0; start < items.length; start += ITEMS_PER_SLICE) {
        const slice = items.slice(start, start + ITEMS_PER_SLICE).map((item) => JSON.stringify(toJson(item)));
        yield (start === 0 ? '' : ',') + slice.join(',');
        await new Promise((resolve) => setImmediate(resolve));
      }
      yield `],"meta":${JSON.stringify(envelope.meta)}}`;
    }
    return Readable.from(slices(), { objectMode: false });
  }
}
