import { existsSync, readdirSync } from 'node:fs';
import { ARTIFACTS_DIR, artifactPath, loadArtifact, type ContractName } from '../../contracts-abi/artifacts';
import { compileContracts } from '../../contracts-abi/compile-contracts';

// solc-js compiles everything (OpenZeppelin included) in one go: a few seconds.
jest.setTimeout(60_000);

describe('committed contract artifacts', () => {
  const { artifacts } = compileContracts();

  it('exist for exactly the deployable contracts of contracts-abi/src', () => {
    const committed = readdirSync(ARTIFACTS_DIR)
      .filter((f) => f.endsWith('.json'))
      .map((f) => f.slice(0, -'.json'.length))
      .sort();
    expect(committed).toEqual(artifacts.map((a) => a.contractName));
    expect(committed).toEqual(
      expect.arrayContaining([
        'OrderExecutor',
        'SwapRouter',
        'TestToken',
        'TimelockController',
        'TokenSpender',
      ]),
    );
  });

  it.each(artifacts.map((a) => [a.contractName, a] as const))(
    '%s matches a fresh compile of the sources (run `npm run contracts:build` if not)',
    (name, fresh) => {
      expect(existsSync(artifactPath(name))).toBe(true);
      const committed = loadArtifact(name as ContractName);
      expect(committed.abi).toEqual(fresh.abi);
      expect(committed.bytecode).toBe(fresh.bytecode);
      expect(committed.deployedBytecode).toBe(fresh.deployedBytecode);
    },
  );
});
