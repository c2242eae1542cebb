import { readFileSync } from 'node:fs';
import path from 'node:path';
import { KEEPER_STAGES } from '../../keeper/keeper-metrics';
import { confirmationDepthOf } from '../../keeper/settle/confirmation-depths';

const ROOT = path.resolve(__dirname, '../..');
const read = (relative: string): string => readFileSync(path.join(ROOT, relative), 'utf8');

/** The text of a README section: from its heading to the next heading of the same or a higher level. */
function section(markdown: string, heading: string): string {
  const start = markdown.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`no section "${heading}"`);
  const level = /^#+/.exec(heading)![0].length;
  const rest = markdown.slice(start + heading.length + 2);
  const end = rest.search(new RegExp(`^#{1,${level}} `, 'm'));
  return end < 0 ? rest : rest.slice(0, end);
}

/** The body rows of the first Markdown table in `text`, as trimmed cells. */
function tableRows(text: string): string[][] {
  const lines = text.split('\n').filter((line) => line.startsWith('|'));
  return lines.slice(2).map((line) =>
    line
      .slice(1, -1)
      .split('|')
      .map((cell) => cell.trim()),
  );
}

const number = (cell: string): number => Number(cell.replace(/,/g, ''));

describe("the README's keeper section", () => {
  const readme = read('README.md');

  it('draws the pipeline of keeper/chain-keeper.ts, each stage a timed stage name', () => {
    const doc = /^\s*\*\s+(track → .+)$/m.exec(read('keeper/chain-keeper.ts'));
    expect(doc).not.toBeNull();
    const keeper = section(readme, '## Keeper');
    const drawn = /```text\n(.+)\n```/.exec(keeper);
    expect(drawn?.[1]).toBe(doc![1]!.trim());
    const stages = drawn![1]!.split(' → ').filter((stage) => !stage.startsWith('('));
    expect(stages.filter((stage) => !(KEEPER_STAGES as readonly string[]).includes(stage))).toEqual([]);
    // Each stage is described, with its folder.
    for (const stage of stages)
      expect(keeper).toMatch(new RegExp(`^- \\*\\*${stage}\\*\\* \\(\`keeper/`, 'm'));
  });

  it("tables every chain's default confirmations and re-check window as keeper/settle/confirmation-depths.ts has them", () => {
    const rows = tableRows(section(readme, '### Completion depth and reorgs'));
    expect(rows.length).toBeGreaterThan(0);
    const problems: string[] = [];
    for (const [chain, id, confirmations, recheck] of rows) {
      const chainId = /^\d+$/.test(id!) ? Number(id) : 999_999_999;
      const depth = confirmationDepthOf(chainId, undefined, undefined);
      if (number(confirmations!) !== depth.confirmations || number(recheck!) !== depth.recheckBlocks) {
        problems.push(
          `${chain}: README ${confirmations}/${recheck}, code ${depth.confirmations}/${depth.recheckBlocks}`,
        );
      }
    }
    expect(problems).toEqual([]);
    // The spec's eight chains and the fallback.
    expect(rows.map((row) => row[1])).toEqual(
      expect.arrayContaining(['1', '10', '56', '137', '8453', '42161', '43114', '59144']),
    );
    expect(rows.filter((row) => !/^\d+$/.test(row[1]!))).toHaveLength(1);
  });

  it('names the two new keeper metrics and alerts', () => {
    const keeper = section(readme, '## Keeper');
    for (const name of [
      'tas_keeper_settlements_reopened_total',
      'tas_keeper_nonce_gaps_filled_total',
      'TasKeeperSettlementReorged',
      'TasKeeperNonceGapFilled',
    ]) {
      expect(keeper).toContain(name);
    }
  });
});

describe("grafana/README.md's alert table", () => {
  it('lists exactly the alerts of grafana/alerts/tas-alerts.yml', () => {
    const rules = [...read('grafana/alerts/tas-alerts.yml').matchAll(/^\s*- alert:\s*(\S+)\s*$/gm)].map(
      (m) => m[1]!,
    );
    const listed = tableRows(section(read('grafana/README.md'), '## Alerts')).map((row) =>
      row[0]!.replace(/`/g, ''),
    );
    expect([...listed].sort()).toEqual([...rules].sort());
  });
});
