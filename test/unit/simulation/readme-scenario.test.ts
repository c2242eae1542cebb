import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseScenario } from '../../../simulator/scenario/scenario-schema';

const ROOT = path.resolve(__dirname, '../../..');

/** The README's scenario example: the JSON block under "### Writing a scenario". */
function readmeExample(): unknown {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('### Writing a scenario'));
  const block = /```json\n([\s\S]*?)\n```/.exec(section);
  if (!block) throw new Error('no JSON block under "### Writing a scenario"');
  return JSON.parse(block[1]) as unknown;
}

describe("the README's scenario example", () => {
  it('is valid and is the shipped dip-and-rally scenario that npm test runs', () => {
    const example = readmeExample();
    const shipped = JSON.parse(
      readFileSync(path.join(ROOT, 'simulations', 'dip-and-rally.json'), 'utf8'),
    ) as Record<string, unknown>;
    const { description, ...withoutDescription } = shipped;
    expect(typeof description).toBe('string');
    expect(example).toEqual(withoutDescription);
    expect(parseScenario(example, 'README.md')).toMatchObject({
      name: 'dip-and-rally',
      blocks: 200,
      seed: 7,
    });
  });
});
