import {
  AbiCoder,
  Contract,
  Interface,
  MaxUint256,
  Wallet,
  ZeroAddress,
  id,
  type ContractTransactionResponse,
  type JsonRpcProvider,
  type TransactionReceipt,
} from 'ethers';
import { devnetKeys } from '../../../devnet/keys';
import { startChain, type ChainHandle } from '../../../devnet/start-chain';
import { WETH_ABI } from '../../../devnet/world/abis';
import { deployWorld, type DeployedWorld } from '../../../devnet/world/deploy-world';
import {
  addressToBytes32,
  FillStatus,
  fundsDepositsOf,
  relayHash,
  type FundsDeposit,
} from '../../../shared/bridges/across/relay-data';
import {
  buildRelayerRefundTree,
  EMPTY_MERKLE_ROOT,
  type RelayerRefundLeaf,
} from '../../../shared/bridges/across/root-bundle';
import {
  crossChainEntryInterface,
  lockReleaseBridgeInterface,
  spokePoolInterface,
} from '../../../shared/bridges/contracts';
import { lockedEventsOf, releasedEventsOf } from '../../../shared/bridges/lock-release/locked-event';

/**
 * The bridge contracts on two anvil chains with the fixture world: deposits through our CrossChainEntry into the
 * real Across SpokePool (fees paid in the source token), fills by the relayer from its seeded inventory, a root
 * bundle that repays the relayer and refunds an expired deposit, and the lock-and-release bridge.
 */

const ORIGIN = 1;
const DESTINATION = 137;
const GAS_LIMIT = 3_000_000n;
const keys = devnetKeys();

interface Side {
  chain: ChainHandle;
  provider: JsonRpcProvider;
  world: DeployedWorld;
  spoke: Contract;
  entry: Contract;
  bridge: Contract;
  token(symbol: string): string;
}

const sides = new Map<number, Side>();
const side = (chainId: number) => sides.get(chainId)!;

async function startSide(chainId: number): Promise<Side> {
  // The SpokePool build uses Cancun's MCOPY: anvil, whatever DEVNET_ENGINE says.
  const chain = await startChain({ chainId, engine: 'anvil' });
  try {
    const world = await deployWorld({
      provider: chain.provider,
      mining: chain,
      chainId,
      deployer: keys.deployer,
      executors: keys.executors.map((e) => e.address),
      fund: keys.accounts.map((a) => a.address),
    });
    const at = (address: string | undefined, iface: Interface) =>
      new Contract(address!, iface, chain.provider);
    return {
      chain,
      provider: chain.provider,
      world,
      spoke: at(world.contracts.spokePool, spokePoolInterface()),
      entry: at(world.contracts.crossChainEntry, crossChainEntryInterface()),
      bridge: at(world.contracts.lockReleaseBridge, lockReleaseBridgeInterface()),
      token: (symbol) => {
        const token = world.tokens.find((t) => t.symbol === symbol);
        if (!token) throw new Error(`no ${symbol} on chain ${chainId}`);
        return token.address;
      },
    };
  } catch (err) {
    await chain.stop();
    throw err;
  }
}

beforeAll(async () => {
  const [origin, destination] = await Promise.all([startSide(ORIGIN), startSide(DESTINATION)]);
  sides.set(ORIGIN, origin);
  sides.set(DESTINATION, destination);
}, 60_000);

afterAll(async () => {
  await Promise.all([...sides.values()].map((s) => s.chain.stop()));
});

// ---- helpers ----

async function mined(tx: Promise<ContractTransactionResponse>): Promise<TransactionReceipt> {
  const receipt = await (await tx).wait();
  if (!receipt || receipt.status !== 1) throw new Error(`transaction failed: ${receipt?.hash}`);
  return receipt;
}

function send(contract: Contract, signer: Wallet, method: string, args: unknown[], value = 0n) {
  const connected = contract.connect(signer.connect(contract.runner!.provider!)) as Contract;
  return connected.getFunction(method)(...args, {
    value,
    gasLimit: GAS_LIMIT,
  }) as Promise<ContractTransactionResponse>;
}

/** The error a call reverts with (run as eth_call from `signer`: the execution a transaction would run). */
async function revertName(
  contract: Contract,
  signer: Wallet,
  method: string,
  args: unknown[],
  value = 0n,
): Promise<string> {
  const connected = contract.connect(signer.connect(contract.runner!.provider!)) as Contract;
  try {
    await connected.getFunction(method).staticCall(...args, { value });
  } catch (err) {
    const { data, code } = err as { data?: string | null; code?: string };
    // The SpokePool's build strips require strings (OwnableUpgradeable's onlyOwner among them).
    if (code === 'CALL_EXCEPTION' && (data === '0x' || data === null)) return 'reverted without data';
    if (typeof data !== 'string' || data.length < 10) throw err;
    if (data.startsWith('0x08c379a0'))
      return `Error(${AbiCoder.defaultAbiCoder().decode(['string'], `0x${data.slice(10)}`)[0] as string})`;
    // A SpokePool error bubbles up through the entry: any of the bridges' interfaces names it.
    for (const iface of [contract.interface, spokePoolInterface(), crossChainEntryInterface()]) {
      const parsed = iface.parseError(data);
      if (parsed) return parsed.name;
    }
    return `unknown ${data}`;
  }
  throw new Error(`${method} did not revert`);
}

async function balance(s: Side, token: string | 'native', owner: string): Promise<bigint> {
  if (token === 'native') return s.provider.getBalance(owner);
  return (await new Contract(token, WETH_ABI, s.provider).getFunction('balanceOf')(owner)) as bigint;
}

async function now(s: Side): Promise<number> {
  return (await s.provider.getBlock('latest'))!.timestamp;
}

/** 0.15% protocol fee and 0.5% integrator fee out of what the account spends, the rest to the bridge. */
function split(total: bigint) {
  const protocolFee = (total * 15n) / 10_000n;
  const integratorFee = (total * 50n) / 10_000n;
  return { inputAmount: total - protocolFee - integratorFee, protocolFee, integratorFee };
}

const integrator = new Wallet(id('cross-chain-contracts/integrator')).address;
const user = () => keys.accounts[0]!;

interface IntentArgs {
  inputToken: string;
  total: bigint;
  outputToken: string;
  outputAmount: bigint;
  recipient: string;
  fillDeadline: number;
  native?: boolean;
}

/** depositIntent from the user on the origin; returns the receipt and the deposit the SpokePool logged. */
async function depositIntent(a: IntentArgs): Promise<{ receipt: TransactionReceipt; deposit: FundsDeposit }> {
  const origin = side(ORIGIN);
  const { inputAmount, protocolFee, integratorFee } = split(a.total);
  const d = {
    inputToken: a.inputToken,
    inputAmount,
    outputToken: a.outputToken,
    outputAmount: a.outputAmount,
    destinationChainId: DESTINATION,
    recipient: a.recipient,
    exclusiveRelayer: keys.relayer.address,
    quoteTimestamp: await now(origin),
    fillDeadline: a.fillDeadline,
    exclusivityParameter: 30,
  };
  const fees = { protocolFee, integratorFee, integratorFeeRecipient: integrator };
  const deadline = (await now(origin)) + 300;
  const receipt = await mined(
    send(origin.entry, user(), 'depositIntent', [d, fees, deadline], a.native ? a.total : 0n),
  );
  const deposits = fundsDepositsOf(receipt.logs, origin.world.contracts.spokePool!, ORIGIN);
  expect(deposits).toHaveLength(1);
  return { receipt, deposit: deposits[0]! };
}

// ---- state shared along the story ----

let usdcDeposit: FundsDeposit;
let nativeDeposit: FundsDeposit;
let expiredDeposit: FundsDeposit;

describe('intent deposits through CrossChainEntry', () => {
  it('takes an ERC-20 input, pays both fees in it and deposits the rest for the account', async () => {
    const origin = side(ORIGIN);
    const destination = side(DESTINATION);
    const usdc = origin.token('USDC');
    const total = 50_000n * 10n ** 6n;
    const { inputAmount, protocolFee, integratorFee } = split(total);
    const recipient = Wallet.createRandom().address;
    await mined(
      send(new Contract(usdc, WETH_ABI, origin.provider), user(), 'approve', [origin.entry.target, total]),
    );
    const before = await Promise.all(
      [user().address, keys.protocolFeeRecipient, integrator, origin.world.contracts.spokePool!].map((o) =>
        balance(origin, usdc, o),
      ),
    );
    const { receipt, deposit } = await depositIntent({
      inputToken: usdc,
      total,
      outputToken: destination.token('USDC'),
      outputAmount: inputAmount - 10n ** 6n,
      recipient,
      fillDeadline: (await now(destination)) + 600,
    });
    const after = await Promise.all(
      [user().address, keys.protocolFeeRecipient, integrator, origin.world.contracts.spokePool!].map((o) =>
        balance(origin, usdc, o),
      ),
    );
    expect(after.map((b, i) => b - before[i]!)).toEqual([-total, protocolFee, integratorFee, inputAmount]);
    // Nothing stays in the entry, and its allowance to the SpokePool is used up.
    expect(await balance(origin, usdc, origin.entry.target as string)).toBe(0n);
    const fees = receipt.logs
      .filter((l) => l.address === origin.entry.target)
      .map((l) => origin.entry.interface.parseLog(l)!);
    expect(fees.map((f) => [f.name, ...f.args])).toEqual([
      ['CrossChainFees', user().address, usdc, protocolFee, integratorFee, integrator],
    ]);
    expect(deposit.relayData).toMatchObject({
      depositor: addressToBytes32(user().address),
      recipient: addressToBytes32(recipient),
      exclusiveRelayer: addressToBytes32(keys.relayer.address),
      inputToken: addressToBytes32(usdc),
      outputToken: addressToBytes32(destination.token('USDC')),
      inputAmount,
      originChainId: 1n,
      depositId: 0n,
      message: '0x',
    });
    expect(deposit.destinationChainId).toBe(137n);
    // Exclusivity runs from the deposit's block.
    const block = await origin.provider.getBlock(receipt.blockNumber);
    expect(deposit.relayData.exclusivityDeadline).toBe(block!.timestamp + 30);
    // Our relay hash is the destination SpokePool's.
    expect(await destination.spoke.getFunction('getV3RelayHash')(deposit.relayData)).toBe(
      relayHash(deposit.relayData, DESTINATION),
    );
    usdcDeposit = deposit;
  });

  it('wraps a native input, pays the fees in the wrapped native and deposits it', async () => {
    const origin = side(ORIGIN);
    const destination = side(DESTINATION);
    const weth = origin.world.contracts.weth;
    const total = 10n ** 18n;
    const { inputAmount, protocolFee, integratorFee } = split(total);
    const [feeBefore, integratorBefore, spokeBefore] = await Promise.all(
      [keys.protocolFeeRecipient, integrator, origin.world.contracts.spokePool!].map((o) =>
        balance(origin, weth, o),
      ),
    );
    const { receipt, deposit } = await depositIntent({
      inputToken: weth,
      total,
      native: true,
      outputToken: destination.world.contracts.weth,
      outputAmount: 5_000n * 10n ** 18n,
      recipient: Wallet.createRandom().address,
      fillDeadline: (await now(destination)) + 600,
    });
    expect(receipt.status).toBe(1);
    expect(await balance(origin, weth, keys.protocolFeeRecipient)).toBe(feeBefore! + protocolFee);
    expect(await balance(origin, weth, integrator)).toBe(integratorBefore! + integratorFee);
    expect(await balance(origin, weth, origin.world.contracts.spokePool!)).toBe(spokeBefore! + inputAmount);
    expect(deposit.relayData.inputToken).toBe(addressToBytes32(weth));
    expect(deposit.relayData.depositId).toBe(1n);
    nativeDeposit = deposit;
  });

  it('refuses a wrong value, an unpaid integrator fee recipient, an inflated fee and a passed deadline', async () => {
    const origin = side(ORIGIN);
    const weth = origin.world.contracts.weth;
    const total = 10n ** 18n;
    const { inputAmount, protocolFee, integratorFee } = split(total);
    const ts = await now(origin);
    const d = {
      inputToken: weth,
      inputAmount,
      outputToken: side(DESTINATION).world.contracts.weth,
      outputAmount: 1n,
      destinationChainId: DESTINATION,
      recipient: user().address,
      exclusiveRelayer: keys.relayer.address,
      quoteTimestamp: ts,
      fillDeadline: ts + 600,
      exclusivityParameter: 30,
    };
    const fees = { protocolFee, integratorFee, integratorFeeRecipient: integrator };
    const call = (args: unknown[], value: bigint) =>
      revertName(origin.entry, user(), 'depositIntent', args, value);
    expect(await call([d, fees, ts + 300], total - 1n)).toBe('BadValue');
    expect(await call([{ ...d, inputToken: origin.token('USDC') }, fees, ts + 300], total)).toBe('BadValue');
    expect(await call([d, { ...fees, integratorFeeRecipient: ZeroAddress }, ts + 300], total)).toBe('BadFee');
    const inflated = { ...fees, integratorFee: inputAmount };
    expect(await call([d, inflated, ts + 300], inputAmount * 2n + protocolFee)).toBe('BadFee');
    expect(await call([d, fees, ts - 1], total)).toBe('Expired');
    // The SpokePool's own checks still apply behind the entry.
    expect(await call([{ ...d, quoteTimestamp: ts + 1000 }, fees, ts + 300], total)).toBe(
      'InvalidQuoteTimestamp',
    );
  });

  it('sends nothing for a zero fee', async () => {
    const origin = side(ORIGIN);
    const dai = origin.token('DAI');
    const amount = 100n * 10n ** 18n;
    await mined(
      send(new Contract(dai, WETH_ABI, origin.provider), user(), 'approve', [origin.entry.target, amount]),
    );
    const feeBefore = await balance(origin, dai, keys.protocolFeeRecipient);
    const ts = await now(origin);
    const d = {
      inputToken: dai,
      inputAmount: amount,
      outputToken: side(DESTINATION).token('DAI'),
      outputAmount: amount,
      destinationChainId: DESTINATION,
      recipient: user().address,
      exclusiveRelayer: ZeroAddress,
      quoteTimestamp: ts,
      fillDeadline: ts + 600,
      exclusivityParameter: 0,
    };
    const receipt = await mined(
      send(origin.entry, user(), 'depositIntent', [
        d,
        { protocolFee: 0n, integratorFee: 0n, integratorFeeRecipient: ZeroAddress },
        ts + 300,
      ]),
    );
    const transfers = receipt.logs.filter(
      (l) => l.address === dai && l.topics[0] === id('Transfer(address,address,uint256)'),
    );
    // Account → entry, entry → SpokePool: no fee transfer.
    expect(transfers).toHaveLength(2);
    expect(await balance(origin, dai, keys.protocolFeeRecipient)).toBe(feeBefore);
  });
});

describe('fills on the destination', () => {
  it('lets only the exclusive relayer fill during exclusivity', async () => {
    const destination = side(DESTINATION);
    expect(
      await revertName(destination.spoke, keys.accounts[1]!, 'fillRelay', [
        usdcDeposit.relayData,
        ORIGIN,
        addressToBytes32(keys.accounts[1]!.address),
      ]),
    ).toBe('NotExclusiveRelayer');
  });

  it('pays the recipient from the relayer’s inventory once; a second fill reverts', async () => {
    const destination = side(DESTINATION);
    const usdc = destination.token('USDC');
    const recipient = `0x${usdcDeposit.relayData.recipient.slice(26)}`;
    const relayerBefore = await balance(destination, usdc, keys.relayer.address);
    const hash = relayHash(usdcDeposit.relayData, DESTINATION);
    expect(Number(await destination.spoke.getFunction('fillStatuses')(hash))).toBe(FillStatus.Unfilled);
    const args = [usdcDeposit.relayData, ORIGIN, addressToBytes32(keys.relayer.address)];
    // The seeded approval covers the fill: no approval transaction first.
    const receipt = await mined(send(destination.spoke, keys.relayer, 'fillRelay', args));
    expect(await balance(destination, usdc, recipient)).toBe(usdcDeposit.relayData.outputAmount);
    expect(await balance(destination, usdc, keys.relayer.address)).toBe(
      relayerBefore - usdcDeposit.relayData.outputAmount,
    );
    expect(Number(await destination.spoke.getFunction('fillStatuses')(hash))).toBe(FillStatus.Filled);
    const filled = receipt.logs
      .map((l) => destination.spoke.interface.parseLog(l))
      .find((e) => e?.name === 'FilledRelay');
    expect(filled?.args.depositId).toBe(0n);
    expect(filled?.args.originChainId).toBe(1n);
    expect(filled?.args.relayer).toBe(addressToBytes32(keys.relayer.address));
    expect(await revertName(destination.spoke, keys.relayer, 'fillRelay', args)).toBe('RelayFilled');
  });

  it('unwraps a wrapped-native output to the recipient’s native coin', async () => {
    const destination = side(DESTINATION);
    const recipient = `0x${nativeDeposit.relayData.recipient.slice(26)}`;
    const wpol = destination.world.contracts.weth;
    const relayerBefore = await balance(destination, wpol, keys.relayer.address);
    await mined(
      send(destination.spoke, keys.relayer, 'fillRelay', [
        nativeDeposit.relayData,
        ORIGIN,
        addressToBytes32(keys.relayer.address),
      ]),
    );
    expect(await balance(destination, 'native', recipient)).toBe(nativeDeposit.relayData.outputAmount);
    expect(await balance(destination, wpol, recipient)).toBe(0n);
    expect(await balance(destination, wpol, keys.relayer.address)).toBe(
      relayerBefore - nativeDeposit.relayData.outputAmount,
    );
  });

  it('refuses a fill after the fill deadline (destination clock)', async () => {
    const destination = side(DESTINATION);
    const { deposit } = await depositIntent({
      inputToken: side(ORIGIN).world.contracts.weth,
      total: 2n * 10n ** 18n,
      native: true,
      outputToken: destination.world.contracts.weth,
      outputAmount: 10_000n * 10n ** 18n,
      recipient: Wallet.createRandom().address,
      fillDeadline: (await now(destination)) + 120,
    });
    await destination.chain.increaseTime(600);
    await destination.chain.mine();
    const args = [deposit.relayData, ORIGIN, addressToBytes32(keys.relayer.address)];
    expect(await revertName(destination.spoke, keys.relayer, 'fillRelay', args)).toBe('ExpiredFillDeadline');
    const hash = relayHash(deposit.relayData, DESTINATION);
    expect(Number(await destination.spoke.getFunction('fillStatuses')(hash))).toBe(FillStatus.Unfilled);
    expiredDeposit = deposit;
  });
});

describe('a root bundle on the origin', () => {
  it('repays the relayer for its fills and refunds the expired deposit to its depositor', async () => {
    const origin = side(ORIGIN);
    const usdc = origin.token('USDC');
    const weth = origin.world.contracts.weth;
    const leaves: RelayerRefundLeaf[] = [
      {
        amountToReturn: 0n,
        chainId: 1n,
        refundAmounts: [usdcDeposit.relayData.inputAmount],
        leafId: 0,
        l2TokenAddress: usdc,
        refundAddresses: [keys.relayer.address],
      },
      {
        amountToReturn: 0n,
        chainId: 1n,
        refundAmounts: [nativeDeposit.relayData.inputAmount, expiredDeposit.relayData.inputAmount],
        leafId: 1,
        l2TokenAddress: weth,
        refundAddresses: [keys.relayer.address, user().address],
      },
      // An empty leaf makes the tree odd: its last node is carried up a level unpaired.
      {
        amountToReturn: 0n,
        chainId: 1n,
        refundAmounts: [],
        leafId: 2,
        l2TokenAddress: origin.token('DAI'),
        refundAddresses: [],
      },
    ];
    const tree = buildRelayerRefundTree(leaves);
    expect(
      await revertName(origin.spoke, keys.relayer, 'relayRootBundle', [tree.root, EMPTY_MERKLE_ROOT]),
    ).toBe('reverted without data');
    const relayed = await mined(
      send(origin.spoke, keys.bridgeAdmin, 'relayRootBundle', [tree.root, EMPTY_MERKLE_ROOT]),
    );
    const bundle = relayed.logs
      .map((l) => origin.spoke.interface.parseLog(l))
      .find((e) => e?.name === 'RelayedRootBundle');
    const rootBundleId = bundle!.args.rootBundleId as bigint;
    expect(rootBundleId).toBe(0n);

    const before = {
      relayerUsdc: await balance(origin, usdc, keys.relayer.address),
      relayerWeth: await balance(origin, weth, keys.relayer.address),
      userWeth: await balance(origin, weth, user().address),
    };
    // A proof of another leaf does not execute.
    expect(
      await revertName(origin.spoke, keys.bridgeAdmin, 'executeRelayerRefundLeaf', [
        rootBundleId,
        leaves[0],
        tree.proofs[1],
      ]),
    ).toBe('InvalidMerkleProof');
    for (const [i, leaf] of leaves.entries()) {
      const receipt = await mined(
        send(origin.spoke, keys.bridgeAdmin, 'executeRelayerRefundLeaf', [
          rootBundleId,
          leaf,
          tree.proofs[i],
        ]),
      );
      const executed = receipt.logs
        .map((l) => origin.spoke.interface.parseLog(l))
        .find((e) => e?.name === 'ExecutedRelayerRefundRoot');
      expect([executed?.args.rootBundleId, executed?.args.leafId, executed?.args.deferredRefunds]).toEqual([
        0n,
        BigInt(i),
        false,
      ]);
    }
    expect(await balance(origin, usdc, keys.relayer.address)).toBe(
      before.relayerUsdc + usdcDeposit.relayData.inputAmount,
    );
    expect(await balance(origin, weth, keys.relayer.address)).toBe(
      before.relayerWeth + nativeDeposit.relayData.inputAmount,
    );
    expect(await balance(origin, weth, user().address)).toBe(
      before.userWeth + expiredDeposit.relayData.inputAmount,
    );
    expect(
      await revertName(origin.spoke, keys.bridgeAdmin, 'executeRelayerRefundLeaf', [
        rootBundleId,
        leaves[0],
        tree.proofs[0],
      ]),
    ).toBe('ClaimedMerkleLeaf');
  });
});

describe('the lock-and-release bridge', () => {
  it('locks through the entry, releases once on the destination, by the releaser only', async () => {
    const origin = side(ORIGIN);
    const destination = side(DESTINATION);
    const usdc = origin.token('USDC');
    const total = 20_000n * 10n ** 6n;
    const { inputAmount, protocolFee, integratorFee } = split(total);
    const recipient = Wallet.createRandom().address;
    await mined(
      send(new Contract(usdc, WETH_ABI, origin.provider), user(), 'approve', [
        origin.entry.target,
        MaxUint256,
      ]),
    );
    const bridgeBefore = await balance(origin, usdc, origin.world.contracts.lockReleaseBridge!);
    const t = {
      inputToken: usdc,
      inputAmount,
      outputToken: destination.token('USDC'),
      outputAmount: inputAmount - 4n * 10n ** 6n,
      destinationChainId: DESTINATION,
      recipient,
    };
    const fees = { protocolFee, integratorFee, integratorFeeRecipient: integrator };
    const receipt = await mined(send(origin.entry, user(), 'lock', [t, fees, (await now(origin)) + 300]));
    expect(await balance(origin, usdc, origin.world.contracts.lockReleaseBridge!)).toBe(
      bridgeBefore + inputAmount,
    );
    const [locked] = lockedEventsOf(receipt.logs, origin.world.contracts.lockReleaseBridge!);
    expect(locked).toMatchObject({
      nonce: 0n,
      depositor: user().address,
      destinationChainId: 137n,
      inputToken: usdc,
      inputAmount,
      outputToken: destination.token('USDC'),
      outputAmount: t.outputAmount,
      recipient,
    });

    const args = [ORIGIN, locked!.nonce, locked!.outputToken, locked!.outputAmount, locked!.recipient];
    expect(await revertName(destination.bridge, keys.relayer, 'release', args)).toBe('NotReleaser');
    expect(await destination.bridge.getFunction('released')(ORIGIN, locked!.nonce)).toBe(false);
    const released = await mined(send(destination.bridge, keys.bridgeAdmin, 'release', args));
    expect(await balance(destination, destination.token('USDC'), recipient)).toBe(locked!.outputAmount);
    expect(releasedEventsOf(released.logs, destination.world.contracts.lockReleaseBridge!)).toMatchObject([
      { originChainId: 1n, nonce: 0n, amount: locked!.outputAmount, recipient },
    ]);
    expect(await destination.bridge.getFunction('released')(ORIGIN, locked!.nonce)).toBe(true);
    expect(await revertName(destination.bridge, keys.bridgeAdmin, 'release', args)).toBe('AlreadyReleased');
  });

  it('releases the wrapped native as native coin to an account, as the token to a contract', async () => {
    const destination = side(DESTINATION);
    const wpol = destination.world.contracts.weth;
    const account = Wallet.createRandom().address;
    const contract = destination.world.contracts.swapRouter;
    const amount = 3n * 10n ** 18n;
    await mined(
      send(destination.bridge, keys.bridgeAdmin, 'release', [ORIGIN, 1000n, wpol, amount, account]),
    );
    await mined(
      send(destination.bridge, keys.bridgeAdmin, 'release', [ORIGIN, 1001n, wpol, amount, contract]),
    );
    expect(await balance(destination, 'native', account)).toBe(amount);
    expect(await balance(destination, wpol, account)).toBe(0n);
    expect(await balance(destination, wpol, contract)).toBe(amount);
  });

  it('refuses a lock to its own chain and a release of nothing', async () => {
    const origin = side(ORIGIN);
    const usdc = origin.token('USDC');
    expect(
      await revertName(origin.bridge, user(), 'lock', [
        user().address,
        usdc,
        1n,
        usdc,
        1n,
        ORIGIN,
        user().address,
      ]),
    ).toBe('SameChain');
    expect(
      await revertName(origin.bridge, keys.bridgeAdmin, 'release', [
        DESTINATION,
        5n,
        usdc,
        0n,
        user().address,
      ]),
    ).toBe('ZeroAmount');
  });
});
