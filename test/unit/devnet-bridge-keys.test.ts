import { Wallet } from 'ethers';
import { devnetBridgeEnv } from '../../devnet/bridge-keys';
import { DEVNET_PATHS, devnetKeys } from '../../devnet/keys';
import { loadConfig } from '../../shared/config/load-config';

describe('the devnet bridge keys', () => {
  const keys = devnetKeys(0);

  it('are the relayer and bridge admin roles of the test mnemonic, funded at genesis', () => {
    expect(DEVNET_PATHS.relayer).toBe("m/44'/60'/6'/0/0");
    expect(DEVNET_PATHS.bridgeAdmin).toBe("m/44'/60'/7'/0/0");
    const roles = [keys.deployer, keys.mover, ...keys.accounts].map((w) => w.address);
    expect(roles).not.toContain(keys.relayer.address);
    expect(roles).not.toContain(keys.bridgeAdmin.address);
    expect(keys.relayer.address).not.toBe(keys.bridgeAdmin.address);
  });

  it('configure the keeper and the api unless set explicitly', () => {
    expect(devnetBridgeEnv({})).toEqual({
      RELAYER_PRIVATE_KEY: keys.relayer.privateKey,
      BRIDGE_ADMIN_PRIVATE_KEY: keys.bridgeAdmin.privateKey,
      RELAYER_ADDRESS: keys.relayer.address,
      LOCK_RELEASE_CONFIRMATIONS: '1',
    });
    const own = Wallet.createRandom();
    // The api names the relayer whose key the keeper uses, unless RELAYER_ADDRESS says otherwise.
    expect(devnetBridgeEnv({ RELAYER_PRIVATE_KEY: own.privateKey })).toEqual({
      RELAYER_PRIVATE_KEY: own.privateKey,
      BRIDGE_ADMIN_PRIVATE_KEY: keys.bridgeAdmin.privateKey,
      RELAYER_ADDRESS: own.address,
      LOCK_RELEASE_CONFIRMATIONS: '1',
    });
    // An idle devnet mines no block on top of a lock: one confirmation unless the operator asks for more.
    expect(devnetBridgeEnv({ LOCK_RELEASE_CONFIRMATIONS: '4' }).LOCK_RELEASE_CONFIRMATIONS).toBe('4');
    expect(devnetBridgeEnv({ RELAYER_ADDRESS: keys.accounts[0]!.address }).RELAYER_ADDRESS).toBe(
      keys.accounts[0]!.address,
    );
    expect(devnetBridgeEnv({ RELAYER_PRIVATE_KEY: 'bad' })).toMatchObject({ RELAYER_ADDRESS: '' });
  });

  it('pass the configuration checks', () => {
    const config = loadConfig({ CHAINS_FILE: 'config/chains.json', ...devnetBridgeEnv({}) });
    expect(config.keeper.relayerPrivateKey).toBe(keys.relayer.privateKey);
    expect(config.keeper.bridgeAdminPrivateKey).toBe(keys.bridgeAdmin.privateKey);
    expect(config.crossChain.relayerAddress).toBe(keys.relayer.address);
  });
});
