import {
  AbiCoder,
  Contract,
  Interface,
  MaxUint256,
  Wallet,
  ZeroAddress,
  getAddress,
  id,
  type ContractTransactionResponse,
  type JsonRpcProvider,
  type TransactionReceipt,
} from 'ethers';
import { devnetKeys } from '../../../devnet/keys';
import { mined } from '../../../devnet/wait-for-receipt';
import { startChain, type ChainHandle } from '../../../devnet/start-chain';
import { WETH_ABI } from '../../../devnet/world/abis';
import { bridgeInventory } from '../../../devnet/world/bridge-inventory';
import {
  DEVNET_LOCK_TIMEOUT_SECONDS,
  DEVNET_RELEASE_DELAY_SECONDS,
} from '../../../devnet/world/deploy-bridges';
import { deployWorld, type DeployedWorld } from '../../../devnet/world/deploy-world';
import { worldSpec } from '../../../devnet/world/world-spec';
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
  rootBundleAdminInterface,
  spokePoolInterface,
} from '../../../shared/bridges/contracts';
import {
  findReleased,
  findReleaseQueued,
  isReleased,
  LOCK_STATE,
  pendingReleaseAt,
  readLock,
  type ReleaseMessage,
} from '../../../shared/bridges/lock-release/bridge-reads';
import {
  lockedEventsOf,
  releasedEventsOf,
  releaseQueuedEventsOf,
  type LockedEvent,
} from '../../../shared/bridges/lock-release/locked-event';
import { ChainClient } from '../../../shared/chain/chain-client';
import { DEFAULT_PROTOCOL_FEE_PIPS } from '../../../shared/domain/protocol-fee';

/**
 * The bridge contracts on two anvil chains with the fixture world: deposits through our CrossChainEntry into the
 * real Across SpokePool (fees paid in the source token, the protocol fee at least the entry's pips), fills by the
 * relayer from its seeded inventory, root bundles proposed to the RootBundleAdmin that owns the SpokePool, and the
 * lock-and-release bridge: locks that paid our fees or not, acceptance and refunds on the origin, releases within
 * the hourly limit at once and beyond it after the delay, and the keys the owner rotates.
 */

const ORIGIN = 1;
const DESTINATION = 137;
const GAS_LIMIT = 3_000_000n;
const PIPS = 1_000_000n;
const keys = devnetKeys();
/** Owns the LockReleaseBridges and the RootBundleAdmins (the world's deployer). */
const owner = () => keys.deployer;
/** A funded account with no role on any bridge contract. */
const stranger = () => keys.accounts[1]!;

interface Side {
  chain: ChainHandle;
  provider: JsonRpcProvider;
  /** The shared readers' access to the chain. */
  client: ChainClient;
  world: DeployedWorld;
  spoke: Contract;
  entry: Contract;
  bridge: Contract;
  rootBundleAdmin: Contract;
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
      client: new ChainClient({ chainId, name: `chain ${chainId}`, rpcUrls: [chain.rpcUrl] }),
      world,
      spoke: at(world.contracts.spokePool, spokePoolInterface()),
      entry: at(world.contracts.crossChainEntry, crossChainEntryInterface()),
      bridge: at(world.contracts.lockReleaseBridge, lockReleaseBridgeInterface()),
      rootBundleAdmin: at(world.contracts.rootBundleAdmin, rootBundleAdminInterface()),
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
  for (const s of sides.values()) s.client.close();
  await Promise.all([...sides.values()].map((s) => s.chain.stop()));
});

// ---- helpers ----

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
    for (const iface of [
      contract.interface,
      spokePoolInterface(),
      crossChainEntryInterface(),
      lockReleaseBridgeInterface(),
      rootBundleAdminInterface(),
    ]) {
      const parsed = iface.parseError(data);
      if (parsed) return parsed.name;
    }
    return `unknown ${data}`;
  }
  throw new Error(`${method} did not revert`);
}

/** The events `contract` emitted in the receipt, as [name, ...args]. */
function eventsOf(receipt: TransactionReceipt, contract: Contract): unknown[][] {
  const address = (contract.target as string).toLowerCase();
  return receipt.logs
    .filter((l) => l.address.toLowerCase() === address)
    .map((l) => contract.interface.parseLog(l)!)
    .map((e) => [e.name, ...e.args]);
}

async function balance(s: Side, token: string | 'native', owner: string): Promise<bigint> {
  if (token === 'native') return s.provider.getBalance(owner);
  return (await new Contract(token, WETH_ABI, s.provider).getFunction('balanceOf')(owner)) as bigint;
}

async function now(s: Side): Promise<number> {
  return (await s.provider.getBlock('latest'))!.timestamp;
}

/** Moves the chain's clock `seconds` forward and mines a block there. */
async function passTime(s: Side, seconds: number): Promise<void> {
  await s.chain.increaseTime(seconds);
  await s.chain.mine();
}

/**
 * 0.15% protocol fee (the entry's DEFAULT_PROTOCOL_FEE_PIPS of what the account spends, rounded down as the entry
 * rounds its minimum) and 0.5% integrator fee, the rest to the bridge.
 */
function split(total: bigint) {
  const protocolFee = (total * BigInt(DEFAULT_PROTOCOL_FEE_PIPS)) / PIPS;
  const integratorFee = (total * 50n) / 10_000n;
  return { inputAmount: total - protocolFee - integratorFee, protocolFee, integratorFee };
}

/**
 * The least protocol fee the entry takes for `inputAmount` bridged and `integratorFee`: the smallest p with
 * p ≥ floor((input + p + integratorFee) × pips / 1e6). One unit less reverts BadFee.
 */
function minProtocolFee(
  inputAmount: bigint,
  integratorFee: bigint,
  pips = BigInt(DEFAULT_PROTOCOL_FEE_PIPS),
) {
  let fee = ((inputAmount + integratorFee) * pips) / (PIPS - pips);
  while (fee < ((inputAmount + fee + integratorFee) * pips) / PIPS) fee += 1n;
  while (fee > 0n && fee - 1n >= ((inputAmount + fee - 1n + integratorFee) * pips) / PIPS) fee -= 1n;
  return fee;
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

  it('refuses a protocol fee under its pips, rounded down, and sends no integrator fee of zero', async () => {
    const origin = side(ORIGIN);
    const dai = origin.token('DAI');
    const amount = 100n * 10n ** 18n;
    expect(await origin.entry.getFunction('protocolFeePips')()).toBe(BigInt(DEFAULT_PROTOCOL_FEE_PIPS));
    const protocolFee = minProtocolFee(amount, 0n);
    await mined(
      send(new Contract(dai, WETH_ABI, origin.provider), user(), 'approve', [
        origin.entry.target,
        amount + protocolFee,
      ]),
    );
    const feeBefore = await balance(origin, dai, keys.protocolFeeRecipient);
    const integratorBefore = await balance(origin, dai, integrator);
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
    const noFees = { protocolFee: 0n, integratorFee: 0n, integratorFeeRecipient: ZeroAddress };
    expect(await revertName(origin.entry, user(), 'depositIntent', [d, noFees, ts + 300])).toBe('BadFee');
    expect(
      await revertName(origin.entry, user(), 'depositIntent', [
        d,
        { ...noFees, protocolFee: protocolFee - 1n },
        ts + 300,
      ]),
    ).toBe('BadFee');
    const receipt = await mined(
      send(origin.entry, user(), 'depositIntent', [d, { ...noFees, protocolFee }, ts + 300]),
    );
    const transfers = receipt.logs.filter(
      (l) => l.address === dai && l.topics[0] === id('Transfer(address,address,uint256)'),
    );
    // Account → entry, entry → protocol fee recipient, entry → SpokePool: no integrator fee transfer.
    expect(transfers).toHaveLength(3);
    expect(await balance(origin, dai, keys.protocolFeeRecipient)).toBe(feeBefore + protocolFee);
    expect(await balance(origin, dai, integrator)).toBe(integratorBefore);
    // Under 1e6 / pips base units the minimum rounds down to nothing: a dust deposit owes no fee.
    const dust = PIPS / BigInt(DEFAULT_PROTOCOL_FEE_PIPS);
    expect(minProtocolFee(dust, 0n)).toBe(0n);
    await mined(
      send(new Contract(dai, WETH_ABI, origin.provider), user(), 'approve', [origin.entry.target, dust]),
    );
    await mined(
      send(origin.entry, user(), 'depositIntent', [
        { ...d, inputAmount: dust, outputAmount: dust },
        noFees,
        (await now(origin)) + 300,
      ]),
    );
    expect(await balance(origin, dai, keys.protocolFeeRecipient)).toBe(feeBefore + protocolFee);
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

describe('root bundles through the RootBundleAdmin that owns the origin SpokePool', () => {
  it('is the SpokePool’s owner, owned by the deployer, with the bridge admin as proposer', async () => {
    for (const s of [side(ORIGIN), side(DESTINATION)]) {
      expect(await s.spoke.getFunction('owner')()).toBe(getAddress(s.world.contracts.rootBundleAdmin!));
      expect(await s.rootBundleAdmin.getFunction('owner')()).toBe(owner().address);
      expect(await s.rootBundleAdmin.getFunction('proposer')()).toBe(keys.bridgeAdmin.address);
      expect(await s.rootBundleAdmin.getFunction('spokePool')()).toBe(
        getAddress(s.world.contracts.spokePool!),
      );
      expect(await s.rootBundleAdmin.getFunction('liveness')()).toBe(0n);
    }
  });

  it('relays a root bundle the bridge admin proposed, executed by anyone, that repays the relayer and refunds the expired deposit', async () => {
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
    // The SpokePool's owner is a contract: no key relays a root bundle to the pool itself, the bridge admin's
    // (its owner before) and the deployer's (the RootBundleAdmin's owner) included.
    for (const key of [keys.bridgeAdmin, owner(), keys.relayer]) {
      expect(await revertName(origin.spoke, key, 'relayRootBundle', [tree.root, EMPTY_MERKLE_ROOT])).toBe(
        'reverted without data',
      );
    }
    // Only the proposer proposes: not a stranger, not the owner.
    for (const key of [stranger(), owner(), keys.relayer]) {
      expect(await revertName(origin.rootBundleAdmin, key, 'propose', [tree.root, EMPTY_MERKLE_ROOT])).toBe(
        'NotProposer',
      );
    }
    const proposed = await mined(
      send(origin.rootBundleAdmin, keys.bridgeAdmin, 'propose', [tree.root, EMPTY_MERKLE_ROOT]),
    );
    const proposedAt = (await origin.provider.getBlock(proposed.blockNumber))!.timestamp;
    expect(eventsOf(proposed, origin.rootBundleAdmin)).toEqual([
      ['RootBundleProposed', 0n, tree.root, EMPTY_MERKLE_ROOT, BigInt(proposedAt)],
    ]);
    // Nothing reached the SpokePool yet.
    expect(eventsOf(proposed, origin.spoke)).toEqual([]);
    const proposal = await origin.rootBundleAdmin.getFunction('proposals')(0n);
    expect([proposal.relayerRefundRoot, proposal.slowRelayRoot, proposal.executableAt]).toEqual([
      tree.root,
      EMPTY_MERKLE_ROOT,
      BigInt(proposedAt),
    ]);

    // The liveness (none on the devnet) has passed: anyone executes it.
    const relayed = await mined(send(origin.rootBundleAdmin, keys.accounts[2]!, 'execute', [0n]));
    expect(eventsOf(relayed, origin.rootBundleAdmin)).toEqual([['RootBundleExecuted', 0n]]);
    const bundle = relayed.logs
      .map((l) => origin.spoke.interface.parseLog(l))
      .find((e) => e?.name === 'RelayedRootBundle');
    const rootBundleId = bundle!.args.rootBundleId as bigint;
    expect(rootBundleId).toBe(0n);
    expect(bundle!.args.relayerRefundRoot).toBe(tree.root);
    const stored = await origin.spoke.getFunction('rootBundles')(0n);
    expect([stored.relayerRefundRoot, stored.slowRelayRoot]).toEqual([tree.root, EMPTY_MERKLE_ROOT]);
    // A proposal is relayed once.
    expect(await revertName(origin.rootBundleAdmin, stranger(), 'execute', [0n])).toBe('NotProposed');

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

  it('never relays a proposal the owner disputed; only the owner disputes', async () => {
    const origin = side(ORIGIN);
    const disputedRoot = id('cross-chain-contracts/disputed root');
    const proposed = await mined(
      send(origin.rootBundleAdmin, keys.bridgeAdmin, 'propose', [disputedRoot, EMPTY_MERKLE_ROOT]),
    );
    const [[, proposalId]] = eventsOf(proposed, origin.rootBundleAdmin) as [[string, bigint]];
    expect(proposalId).toBe(1n);
    for (const key of [keys.bridgeAdmin, stranger()]) {
      expect(await revertName(origin.rootBundleAdmin, key, 'dispute', [proposalId])).toBe(
        'OwnableUnauthorizedAccount',
      );
    }
    const disputed = await mined(send(origin.rootBundleAdmin, owner(), 'dispute', [proposalId]));
    expect(eventsOf(disputed, origin.rootBundleAdmin)).toEqual([['RootBundleDisputed', proposalId]]);
    expect((await origin.rootBundleAdmin.getFunction('proposals')(proposalId)).executableAt).toBe(0n);
    expect(await revertName(origin.rootBundleAdmin, stranger(), 'execute', [proposalId])).toBe('NotProposed');
    expect(await revertName(origin.rootBundleAdmin, keys.bridgeAdmin, 'execute', [proposalId])).toBe(
      'NotProposed',
    );
    expect(await revertName(origin.rootBundleAdmin, owner(), 'dispute', [proposalId])).toBe('NotProposed');

    // The next proposal becomes the pool's second root bundle: the disputed one never reached it.
    const nextRoot = id('cross-chain-contracts/next root');
    await mined(send(origin.rootBundleAdmin, keys.bridgeAdmin, 'propose', [nextRoot, EMPTY_MERKLE_ROOT]));
    const relayed = await mined(send(origin.rootBundleAdmin, stranger(), 'execute', [2n]));
    const bundle = relayed.logs
      .map((l) => origin.spoke.interface.parseLog(l))
      .find((e) => e?.name === 'RelayedRootBundle');
    expect([bundle?.args.rootBundleId, bundle?.args.relayerRefundRoot]).toEqual([1n, nextRoot]);
  });

  it('forwards the SpokePool’s other admin functions from the owner only', async () => {
    const origin = side(ORIGIN);
    const pause = (paused: boolean) => spokePoolInterface().encodeFunctionData('pauseDeposits', [paused]);
    for (const key of [keys.bridgeAdmin, stranger()]) {
      expect(await revertName(origin.rootBundleAdmin, key, 'adminCall', [pause(true)])).toBe(
        'OwnableUnauthorizedAccount',
      );
    }
    await mined(send(origin.rootBundleAdmin, owner(), 'adminCall', [pause(true)]));
    expect(await origin.spoke.getFunction('pausedDeposits')()).toBe(true);
    await mined(send(origin.rootBundleAdmin, owner(), 'adminCall', [pause(false)]));
    expect(await origin.spoke.getFunction('pausedDeposits')()).toBe(false);
    // A call the pool refuses reverts the admin call with the pool's reason.
    const reinitialize = spokePoolInterface().encodeFunctionData('initialize', [0, owner().address]);
    expect(await revertName(origin.rootBundleAdmin, owner(), 'adminCall', [reinitialize])).toBe(
      'AdminCallFailed',
    );
  });
});

describe('the lock-and-release bridge', () => {
  const USDC_UNITS = 10n ** 6n;
  const originBridge = () => getAddress(side(ORIGIN).world.contracts.lockReleaseBridge!);
  const destinationBridge = () => getAddress(side(DESTINATION).world.contracts.lockReleaseBridge!);
  /** The lock made through the entry (nonce 0) and the one made straight on the bridge (nonce 1). */
  let entryLock: LockedEvent;
  let directLock: LockedEvent;

  /** A lock of `amount` USDC by the user straight on the origin bridge (approved without limit below). */
  async function lockDirect(amount: bigint, recipient = Wallet.createRandom().address): Promise<LockedEvent> {
    const origin = side(ORIGIN);
    const receipt = await mined(
      send(origin.bridge, user(), 'lock', [
        user().address,
        origin.token('USDC'),
        amount,
        side(DESTINATION).token('USDC'),
        amount,
        DESTINATION,
        recipient,
      ]),
    );
    const [locked] = lockedEventsOf(receipt.logs, originBridge());
    return locked!;
  }

  /** The release arguments of a message for `amount` of the destination's USDC. */
  function releaseArgs(m: ReleaseMessage, amount: bigint, recipient: string): unknown[] {
    return [m.originChainId, m.originBridge, m.nonce, side(DESTINATION).token('USDC'), amount, recipient];
  }

  const releasableNow = (token: string) =>
    side(DESTINATION).bridge.getFunction('releasableNow')(token) as Promise<bigint>;

  it('is owned by the deployer and released by the bridge admin, with the entry as fee taker and the devnet’s timings and limits', async () => {
    for (const s of [side(ORIGIN), side(DESTINATION)]) {
      const view = (name: string, ...args: unknown[]) =>
        s.bridge.getFunction(name)(...args) as Promise<unknown>;
      expect(await view('owner')).toBe(owner().address);
      expect(await view('releaser')).toBe(keys.bridgeAdmin.address);
      expect(await view('feeTaker')).toBe(getAddress(s.world.contracts.crossChainEntry!));
      expect(await view('wrappedNative')).toBe(getAddress(s.world.contracts.weth));
      expect(await view('lockTimeout')).toBe(BigInt(DEVNET_LOCK_TIMEOUT_SECONDS));
      expect(await view('releaseDelay')).toBe(BigInt(DEVNET_RELEASE_DELAY_SECONDS));
      expect(await s.entry.getFunction('lockReleaseBridge')()).toBe(
        getAddress(s.world.contracts.lockReleaseBridge!),
      );
      const inventory = bridgeInventory(worldSpec(s.world.chainId));
      expect(inventory.length).toBeGreaterThan(1);
      for (const token of inventory) {
        const address = token.wrapped ? s.world.contracts.weth : s.token(token.symbol);
        expect(token.releaseLimit).toBeGreaterThan(0n);
        expect(await view('releaseLimit', address)).toBe(token.releaseLimit);
        // No release yet: the whole hour's limit is open.
        expect(await view('releasableNow', address)).toBe(token.releaseLimit);
      }
    }
  });

  it('locks through the entry for exactly the input and the fees, marked feesPaid, and refuses a protocol fee under its pips', async () => {
    const origin = side(ORIGIN);
    const destination = side(DESTINATION);
    const usdc = origin.token('USDC');
    const inputAmount = 20_000n * USDC_UNITS;
    const integratorFee = 100n * USDC_UNITS;
    const protocolFee = minProtocolFee(inputAmount, integratorFee);
    const recipient = Wallet.createRandom().address;
    await mined(
      send(new Contract(usdc, WETH_ABI, origin.provider), user(), 'approve', [
        origin.entry.target,
        MaxUint256,
      ]),
    );
    const t = {
      inputToken: usdc,
      inputAmount,
      outputToken: destination.token('USDC'),
      outputAmount: inputAmount - 4n * USDC_UNITS,
      destinationChainId: DESTINATION,
      recipient,
    };
    const fees = { protocolFee, integratorFee, integratorFeeRecipient: integrator };
    const deadline = (await now(origin)) + 300;
    expect(
      await revertName(origin.entry, user(), 'lock', [
        t,
        { ...fees, protocolFee: protocolFee - 1n },
        deadline,
      ]),
    ).toBe('BadFee');
    const holders = [user().address, keys.protocolFeeRecipient, integrator, originBridge()];
    const before = await Promise.all(holders.map((h) => balance(origin, usdc, h)));
    const receipt = await mined(send(origin.entry, user(), 'lock', [t, fees, deadline]));
    const after = await Promise.all(holders.map((h) => balance(origin, usdc, h)));
    expect(after.map((b, i) => b - before[i]!)).toEqual([
      -(inputAmount + protocolFee + integratorFee),
      protocolFee,
      integratorFee,
      inputAmount,
    ]);
    expect(await balance(origin, usdc, origin.entry.target as string)).toBe(0n);
    const lockedAt = (await origin.provider.getBlock(receipt.blockNumber))!.timestamp;
    const [locked] = lockedEventsOf(receipt.logs, originBridge());
    expect(locked).toMatchObject({
      bridge: originBridge(),
      nonce: 0n,
      depositor: user().address,
      destinationChainId: 137n,
      inputToken: usdc,
      inputAmount,
      outputToken: destination.token('USDC'),
      outputAmount: t.outputAmount,
      recipient,
      deadline: lockedAt + DEVNET_LOCK_TIMEOUT_SECONDS,
      feesPaid: true,
    });
    expect(await readLock(origin.client, originBridge(), 0n)).toEqual({
      depositor: user().address,
      deadline: lockedAt + DEVNET_LOCK_TIMEOUT_SECONDS,
      state: LOCK_STATE.locked,
      token: usdc,
      amount: inputAmount,
    });
    entryLock = locked!;
  });

  it('marks a lock straight on the bridge as not having paid the fees', async () => {
    const origin = side(ORIGIN);
    const usdc = origin.token('USDC');
    await mined(
      send(new Contract(usdc, WETH_ABI, origin.provider), user(), 'approve', [originBridge(), MaxUint256]),
    );
    const bridgeBefore = await balance(origin, usdc, originBridge());
    const locked = await lockDirect(500n * USDC_UNITS);
    expect(await balance(origin, usdc, originBridge())).toBe(bridgeBefore + 500n * USDC_UNITS);
    const lockedAt = (await origin.provider.getBlock(locked.blockNumber))!.timestamp;
    expect(locked).toMatchObject({
      nonce: 1n,
      depositor: user().address,
      inputAmount: 500n * USDC_UNITS,
      deadline: lockedAt + DEVNET_LOCK_TIMEOUT_SECONDS,
      feesPaid: false,
    });
    expect(await origin.bridge.getFunction('lockCount')()).toBe(2n);
    directLock = locked;
  });

  it('accepts a lock on the origin and releases it once on the destination, by the releaser only', async () => {
    const origin = side(ORIGIN);
    const destination = side(DESTINATION);
    const token = destination.token('USDC');
    expect(await revertName(origin.bridge, keys.relayer, 'accept', [entryLock.nonce])).toBe('NotReleaser');
    expect(await revertName(origin.bridge, keys.bridgeAdmin, 'accept', [999n])).toBe('NotLocked');
    const accepted = await mined(send(origin.bridge, keys.bridgeAdmin, 'accept', [entryLock.nonce]));
    expect(eventsOf(accepted, origin.bridge)).toEqual([['Accepted', entryLock.nonce]]);
    expect((await readLock(origin.client, originBridge(), entryLock.nonce)).state).toBe(LOCK_STATE.accepted);
    // A re-sent acceptance does nothing, and does not revert.
    const again = await mined(send(origin.bridge, keys.bridgeAdmin, 'accept', [entryLock.nonce]));
    expect(eventsOf(again, origin.bridge)).toEqual([]);

    const message: ReleaseMessage = {
      originChainId: ORIGIN,
      originBridge: originBridge(),
      nonce: entryLock.nonce,
    };
    const args = releaseArgs(message, entryLock.outputAmount, entryLock.recipient);
    expect(await revertName(destination.bridge, keys.relayer, 'release', args)).toBe('NotReleaser');
    expect(await isReleased(destination.client, destinationBridge(), message)).toBe(false);
    const room = await releasableNow(token);
    const released = await mined(send(destination.bridge, keys.bridgeAdmin, 'release', args));
    expect(await balance(destination, token, entryLock.recipient)).toBe(entryLock.outputAmount);
    expect(releasedEventsOf(released.logs, destinationBridge())).toMatchObject([
      {
        originChainId: 1n,
        originBridge: originBridge(),
        nonce: 0n,
        outputToken: token,
        amount: entryLock.outputAmount,
        recipient: entryLock.recipient,
      },
    ]);
    expect(releaseQueuedEventsOf(released.logs, destinationBridge())).toEqual([]);
    expect((await findReleased(destination.client, destinationBridge(), message))?.transactionHash).toBe(
      released.hash,
    );
    expect(await isReleased(destination.client, destinationBridge(), message)).toBe(true);
    expect(await pendingReleaseAt(destination.client, destinationBridge(), message)).toBeUndefined();
    // The release counts against the token's hourly limit.
    expect(await releasableNow(token)).toBe(room - entryLock.outputAmount);
    expect(await revertName(destination.bridge, keys.bridgeAdmin, 'release', args)).toBe('AlreadyReleased');
  });

  it('lets the depositor take an unaccepted lock back after its deadline, never before, and an accepted lock never', async () => {
    const origin = side(ORIGIN);
    const usdc = origin.token('USDC');
    for (const key of [user(), stranger()]) {
      expect(await revertName(origin.bridge, key, 'refund', [directLock.nonce])).toBe('NotRefundable');
    }
    expect(await revertName(origin.bridge, keys.bridgeAdmin, 'refund', [entryLock.nonce])).toBe('NotLocked');

    await passTime(origin, directLock.deadline - (await now(origin)) + 1);
    expect(await now(origin)).toBeGreaterThan(directLock.deadline);
    // Past the deadline the releaser can no longer accept it, and an accepted lock stays accepted.
    expect(await revertName(origin.bridge, keys.bridgeAdmin, 'accept', [directLock.nonce])).toBe(
      'LockExpired',
    );
    for (const key of [user(), keys.bridgeAdmin]) {
      expect(await revertName(origin.bridge, key, 'refund', [entryLock.nonce])).toBe('NotLocked');
    }
    const userBefore = await balance(origin, usdc, user().address);
    const refunded = await mined(send(origin.bridge, user(), 'refund', [directLock.nonce]));
    expect(eventsOf(refunded, origin.bridge)).toEqual([
      ['Refunded', directLock.nonce, user().address, usdc, directLock.inputAmount],
    ]);
    expect(await balance(origin, usdc, user().address)).toBe(userBefore + directLock.inputAmount);
    expect((await readLock(origin.client, originBridge(), directLock.nonce)).state).toBe(LOCK_STATE.refunded);
    expect((await readLock(origin.client, originBridge(), entryLock.nonce)).state).toBe(LOCK_STATE.accepted);
    expect(await revertName(origin.bridge, user(), 'refund', [directLock.nonce])).toBe('NotLocked');
  });

  it('rotates the releaser by the owner only: the old key then accepts, refunds early and releases nothing, the new key does', async () => {
    const origin = side(ORIGIN);
    const destination = side(DESTINATION);
    const usdc = origin.token('USDC');
    const rotated = new Wallet(id('cross-chain-contracts/rotated releaser'));
    const rotate = async (s: Side, to: string) => {
      const receipt = await mined(send(s.bridge, owner(), 'setReleaser', [to]));
      expect(eventsOf(receipt, s.bridge)).toEqual([['ReleaserSet', to]]);
      expect(await s.bridge.getFunction('releaser')()).toBe(to);
    };
    for (const s of [origin, destination]) {
      await s.chain.setBalance(rotated.address, 10n ** 18n);
      for (const key of [stranger(), keys.bridgeAdmin, rotated]) {
        expect(await revertName(s.bridge, key, 'setReleaser', [rotated.address])).toBe(
          'OwnableUnauthorizedAccount',
        );
      }
      expect(await revertName(s.bridge, owner(), 'setReleaser', [ZeroAddress])).toBe('ZeroAddress');
      await rotate(s, rotated.address);
    }
    try {
      const toAccept = await lockDirect(100n * USDC_UNITS);
      const toRefund = await lockDirect(200n * USDC_UNITS);
      const message: ReleaseMessage = {
        originChainId: ORIGIN,
        originBridge: originBridge(),
        nonce: toAccept.nonce,
      };
      const args = releaseArgs(message, toAccept.outputAmount, toAccept.recipient);
      // The old key: nothing. Refunding before the deadline is the releaser's alone, so it is a stranger's refund.
      expect(await revertName(origin.bridge, keys.bridgeAdmin, 'accept', [toAccept.nonce])).toBe(
        'NotReleaser',
      );
      expect(await revertName(origin.bridge, keys.bridgeAdmin, 'refund', [toRefund.nonce])).toBe(
        'NotRefundable',
      );
      expect(await revertName(destination.bridge, keys.bridgeAdmin, 'release', args)).toBe('NotReleaser');

      // The new key: all three.
      const accepted = await mined(send(origin.bridge, rotated, 'accept', [toAccept.nonce]));
      expect(eventsOf(accepted, origin.bridge)).toEqual([['Accepted', toAccept.nonce]]);
      const userBefore = await balance(origin, usdc, user().address);
      expect(await now(origin)).toBeLessThanOrEqual(toRefund.deadline);
      await mined(send(origin.bridge, rotated, 'refund', [toRefund.nonce]));
      expect(await balance(origin, usdc, user().address)).toBe(userBefore + toRefund.inputAmount);
      expect((await readLock(origin.client, originBridge(), toRefund.nonce)).state).toBe(LOCK_STATE.refunded);
      await mined(send(destination.bridge, rotated, 'release', args));
      expect(await balance(destination, destination.token('USDC'), toAccept.recipient)).toBe(
        toAccept.outputAmount,
      );
      expect(await isReleased(destination.client, destinationBridge(), message)).toBe(true);
    } finally {
      for (const s of [origin, destination]) await rotate(s, keys.bridgeAdmin.address);
    }
  });

  it('queues a release past the hourly limit: unpaid, TooEarly before the delay, paid by anyone after it', async () => {
    const destination = side(DESTINATION);
    const token = destination.token('USDC');
    // An hour on, the bucket is full whatever earlier tests released: a bucket still refilling would grow by the
    // seconds between this read and the release's block, and `room + 1` could then fit (nothing queued).
    await passTime(destination, 3_600);
    const room = await releasableNow(token);
    expect(room).toBeGreaterThan(0n);
    const message: ReleaseMessage = { originChainId: ORIGIN, originBridge: originBridge(), nonce: 1_000n };
    const recipient = Wallet.createRandom().address;
    const amount = room + 1n;
    const queued = await mined(
      send(destination.bridge, keys.bridgeAdmin, 'release', releaseArgs(message, amount, recipient)),
    );
    const queuedAt = (await destination.provider.getBlock(queued.blockNumber))!.timestamp;
    const executableAt = queuedAt + DEVNET_RELEASE_DELAY_SECONDS;
    expect(releaseQueuedEventsOf(queued.logs, destinationBridge())).toMatchObject([
      {
        originChainId: 1n,
        originBridge: originBridge(),
        nonce: 1_000n,
        outputToken: token,
        amount,
        recipient,
        executableAt,
      },
    ]);
    expect(releasedEventsOf(queued.logs, destinationBridge())).toEqual([]);
    expect(await balance(destination, token, recipient)).toBe(0n);
    // Taken (a second release is refused), waiting, and not counted against the limit.
    expect(await isReleased(destination.client, destinationBridge(), message)).toBe(true);
    expect(await pendingReleaseAt(destination.client, destinationBridge(), message)).toBe(executableAt);
    expect((await findReleaseQueued(destination.client, destinationBridge(), message))?.transactionHash).toBe(
      queued.hash,
    );
    expect(await findReleased(destination.client, destinationBridge(), message)).toBeUndefined();
    expect(await releasableNow(token)).toBe(room);
    expect(
      await revertName(
        destination.bridge,
        keys.bridgeAdmin,
        'release',
        releaseArgs(message, amount, recipient),
      ),
    ).toBe('AlreadyReleased');
    const execute = [message.originChainId, message.originBridge, message.nonce];
    expect(await revertName(destination.bridge, stranger(), 'executeRelease', execute)).toBe('TooEarly');

    await passTime(destination, DEVNET_RELEASE_DELAY_SECONDS);
    const paid = await mined(send(destination.bridge, stranger(), 'executeRelease', execute));
    expect(await balance(destination, token, recipient)).toBe(amount);
    expect(releasedEventsOf(paid.logs, destinationBridge())).toMatchObject([
      {
        originChainId: 1n,
        originBridge: originBridge(),
        nonce: 1_000n,
        outputToken: token,
        amount,
        recipient,
      },
    ]);
    expect((await findReleased(destination.client, destinationBridge(), message))?.transactionHash).toBe(
      paid.hash,
    );
    expect(await pendingReleaseAt(destination.client, destinationBridge(), message)).toBeUndefined();
    expect(await isReleased(destination.client, destinationBridge(), message)).toBe(true);
    expect(await revertName(destination.bridge, stranger(), 'executeRelease', execute)).toBe('NotPending');
  });

  it('lets the owner alone cancel a queued release, which re-opens the message', async () => {
    const destination = side(DESTINATION);
    const token = destination.token('USDC');
    const message: ReleaseMessage = { originChainId: ORIGIN, originBridge: originBridge(), nonce: 1_001n };
    const recipient = Wallet.createRandom().address;
    // Past what the bucket holds by a minute of its refill: the seconds between this read and the release's block
    // refill it (100,000 USD an hour is about 28 USD a second), and one unit over would fit again by then.
    const limit = (await destination.bridge.getFunction('releaseLimit')(token)) as bigint;
    const amount = (await releasableNow(token)) + limit / 60n;
    const args = releaseArgs(message, amount, recipient);
    const key = [message.originChainId, message.originBridge, message.nonce];
    await mined(send(destination.bridge, keys.bridgeAdmin, 'release', args));
    expect(await pendingReleaseAt(destination.client, destinationBridge(), message)).toBeDefined();
    for (const signer of [keys.bridgeAdmin, stranger()]) {
      expect(await revertName(destination.bridge, signer, 'cancelRelease', key)).toBe(
        'OwnableUnauthorizedAccount',
      );
    }
    const cancelled = await mined(send(destination.bridge, owner(), 'cancelRelease', key));
    expect(eventsOf(cancelled, destination.bridge)).toEqual([
      ['ReleaseCancelled', 1n, originBridge(), 1_001n],
    ]);
    expect(await isReleased(destination.client, destinationBridge(), message)).toBe(false);
    expect(await pendingReleaseAt(destination.client, destinationBridge(), message)).toBeUndefined();
    expect(await revertName(destination.bridge, owner(), 'cancelRelease', key)).toBe('NotPending');
    // Past the delay nothing is left to execute: the recipient stays unpaid.
    await passTime(destination, DEVNET_RELEASE_DELAY_SECONDS);
    expect(await revertName(destination.bridge, stranger(), 'executeRelease', key)).toBe('NotPending');
    expect(await balance(destination, token, recipient)).toBe(0n);
    // The message is open again: the releaser may release it anew (queued again, asked over what the limit's
    // bucket has refilled to meanwhile).
    // Over the bucket by a minute of its refill, as above (one unit over would fit again a second later).
    const overNow = releaseArgs(message, (await releasableNow(token)) + limit / 60n, recipient);
    const again = await mined(send(destination.bridge, keys.bridgeAdmin, 'release', overNow));
    expect(releaseQueuedEventsOf(again.logs, destinationBridge())).toHaveLength(1);
    expect(await isReleased(destination.client, destinationBridge(), message)).toBe(true);
    await mined(send(destination.bridge, owner(), 'cancelRelease', key));
  });

  it('releases at once up to the hourly limit, queues beyond it, and opens the full limit again an hour later', async () => {
    const destination = side(DESTINATION);
    const token = destination.token('USDC');
    const limit = (await destination.bridge.getFunction('releaseLimit')(token)) as bigint;
    const room = await releasableNow(token);
    const message = (nonce: bigint): ReleaseMessage => ({
      originChainId: ORIGIN,
      originBridge: originBridge(),
      nonce,
    });
    const recipient = Wallet.createRandom().address;
    const atOnce = await mined(
      send(destination.bridge, keys.bridgeAdmin, 'release', releaseArgs(message(1_002n), room, recipient)),
    );
    expect(releasedEventsOf(atOnce.logs, destinationBridge())).toHaveLength(1);
    expect(await balance(destination, token, recipient)).toBe(room);
    expect(await releasableNow(token)).toBe(0n);
    // A minute of the bucket's refill: one unit would fit again as soon as the next block is a second later.
    const beyond = limit / 60n;
    const waits = await mined(
      send(destination.bridge, keys.bridgeAdmin, 'release', releaseArgs(message(1_003n), beyond, recipient)),
    );
    expect(releaseQueuedEventsOf(waits.logs, destinationBridge())).toHaveLength(1);
    await passTime(destination, 3600);
    expect(await releasableNow(token)).toBe(limit);
    await mined(send(destination.bridge, stranger(), 'executeRelease', [ORIGIN, originBridge(), 1_003n]));
    expect(await balance(destination, token, recipient)).toBe(room + beyond);
  });

  it('keys a message by its origin bridge: the same nonce from another origin bridge is another message', async () => {
    const destination = side(DESTINATION);
    const token = destination.token('USDC');
    const ours: ReleaseMessage = {
      originChainId: ORIGIN,
      originBridge: originBridge(),
      nonce: entryLock.nonce,
    };
    const other: ReleaseMessage = { ...ours, originBridge: Wallet.createRandom().address };
    const otherChain: ReleaseMessage = { ...ours, originChainId: 56 };
    const recipient = Wallet.createRandom().address;
    expect(await isReleased(destination.client, destinationBridge(), ours)).toBe(true);
    expect(
      await revertName(
        destination.bridge,
        keys.bridgeAdmin,
        'release',
        releaseArgs(ours, 10n * USDC_UNITS, recipient),
      ),
    ).toBe('AlreadyReleased');
    expect(await isReleased(destination.client, destinationBridge(), other)).toBe(false);
    expect(await isReleased(destination.client, destinationBridge(), otherChain)).toBe(false);
    const released = await mined(
      send(destination.bridge, keys.bridgeAdmin, 'release', releaseArgs(other, 10n * USDC_UNITS, recipient)),
    );
    expect(releasedEventsOf(released.logs, destinationBridge())).toMatchObject([
      {
        originChainId: 1n,
        originBridge: getAddress(other.originBridge),
        nonce: entryLock.nonce,
        amount: 10n * USDC_UNITS,
      },
    ]);
    expect(await balance(destination, token, recipient)).toBe(10n * USDC_UNITS);
    expect(await isReleased(destination.client, destinationBridge(), other)).toBe(true);
    expect(await isReleased(destination.client, destinationBridge(), otherChain)).toBe(false);
    // The readers search by all three topics: ours is not found under the other bridge, and the other way round.
    expect((await findReleased(destination.client, destinationBridge(), other))?.transactionHash).toBe(
      released.hash,
    );
    expect((await findReleased(destination.client, destinationBridge(), ours))?.originBridge).toBe(
      originBridge(),
    );
    expect(
      await revertName(
        destination.bridge,
        keys.bridgeAdmin,
        'release',
        releaseArgs({ ...ours, originBridge: ZeroAddress }, 1n, recipient),
      ),
    ).toBe('ZeroAddress');
  });

  it('releases the wrapped native as native coin to an account, as the token to a contract', async () => {
    const destination = side(DESTINATION);
    const wpol = destination.world.contracts.weth;
    const account = Wallet.createRandom().address;
    const contract = destination.world.contracts.swapRouter;
    const amount = 3n * 10n ** 18n;
    await mined(
      send(destination.bridge, keys.bridgeAdmin, 'release', [
        ORIGIN,
        originBridge(),
        2_000n,
        wpol,
        amount,
        account,
      ]),
    );
    await mined(
      send(destination.bridge, keys.bridgeAdmin, 'release', [
        ORIGIN,
        originBridge(),
        2_001n,
        wpol,
        amount,
        contract,
      ]),
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
        side(DESTINATION).world.contracts.lockReleaseBridge,
        5n,
        usdc,
        0n,
        user().address,
      ]),
    ).toBe('ZeroAmount');
  });
});
